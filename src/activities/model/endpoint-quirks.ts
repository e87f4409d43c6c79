import { log } from '@temporalio/activity';
import {
  adaptRequest,
  fallbackOf,
  parameterName,
  refusedParameter,
  type ChatParams,
  type RefusedParameter,
} from './refused-parameters';

/**
 * What the model endpoints a worker calls have refused, by base URL, learned from their 400s and
 * kept for the worker's life. One instance a worker, shared by all its model activities: each
 * parameter an endpoint refuses costs one 400 per worker, logged once (INFO), and every later
 * request to it goes without (`RefusedParameter` says what is sent instead).
 */
export class EndpointQuirks {
  private readonly refusals = new Map<string, Set<RefusedParameter>>();

  /** What `endpoint` has refused so far. */
  refused(endpoint: string): ReadonlySet<RefusedParameter> {
    return this.refusals.get(endpoint) ?? new Set();
  }

  /**
   * Sends `request`, adapted to what `endpoint` refused, with `send`. A 400 that refuses a parameter
   * the request carried is learned and the request sent again at once without it, as many times as
   * it names another one; any other error is thrown as it came.
   */
  async send<R extends ChatParams, T>(endpoint: string, request: R, send: (request: R) => Promise<T>): Promise<T> {
    for (;;) {
      const known = new Set(this.refused(endpoint));
      const adapted = adaptRequest(request, known);
      try {
        return await send(adapted);
      } catch (err) {
        const parameter = refusedParameter(err, adapted);
        if (!parameter || known.has(parameter)) throw err;
        this.learn(endpoint, parameter);
      }
    }
  }

  private learn(endpoint: string, parameter: RefusedParameter): void {
    let refused = this.refusals.get(endpoint);
    if (!refused) this.refusals.set(endpoint, (refused = new Set()));
    // Another call to the same endpoint may have learned it meanwhile: it was logged then.
    if (refused.has(parameter)) return;
    refused.add(parameter);
    log.info(
      `The model endpoint ${endpoint} does not support ${parameterName(parameter)}; calls to it ${fallbackOf(parameter, refused)}`,
      {
        endpoint,
        parameter: parameterName(parameter),
      },
    );
  }
}
