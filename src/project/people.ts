import { People } from '../contract/people/people';
import type { WaveloopSettings } from '../settings';
import type { ValidProjectConfig } from './validate-config';

/**
 * The people directory of a project: those of `WAVELOOP_HTTP_TOKENS` and those of the config's
 * `people`. Throws a `TypeError` naming a person declared twice, or a token two people share.
 */
export function peopleOf(
  settings: Pick<WaveloopSettings, 'people'>,
  config: Pick<ValidProjectConfig, 'people'>,
): People {
  return new People([
    { source: 'WAVELOOP_HTTP_TOKENS', people: settings.people },
    { source: 'the config’s people', people: config.people },
  ]);
}
