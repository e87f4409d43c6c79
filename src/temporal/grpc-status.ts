import { isGrpcServiceError } from '@temporalio/client';

/** The gRPC status codes waveloop reads in the Temporal server's answers. */
export const GrpcStatus = { INVALID_ARGUMENT: 3, NOT_FOUND: 5, ALREADY_EXISTS: 6, FAILED_PRECONDITION: 9 } as const;

/**
 * The gRPC error the Temporal server answered with, behind `err`: `err` itself (a raw service
 * call), or its cause (the client's `ServiceError` and the like wrap it); undefined when there is none.
 */
export function grpcErrorOf(err: unknown): (Error & { code: number; details: string }) | undefined {
  if (isGrpcServiceError(err)) return err;
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  return isGrpcServiceError(cause) ? cause : undefined;
}

/** Whether the server answered `err` with gRPC status `code`. */
export function isGrpcStatus(err: unknown, code: number): boolean {
  return grpcErrorOf(err)?.code === code;
}
