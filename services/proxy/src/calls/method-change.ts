/**
 * A call must do upstream what its scope was checked for, however it came in. A query parameter
 * by which the connector's API would take another method (`_method` and the like; the contracts'
 * connector-access.ts says which, per connector) is 400 METHOD_OVERRIDE_REFUSED, and a GET or HEAD
 * with a body (which some servers read as a write's arguments) is 400 BODY_NOT_ALLOWED. Override
 * headers are dropped rather than refused (domain/header-policy.ts): they change nothing once removed.
 */
import { AppError, methodOverrideIn } from '@pag/contracts';

/** The refusal of a call that would change its method upstream; null when it would not. */
export function methodChange(
  service: string,
  method: string,
  query: string,
  hasBody: boolean,
): AppError | null {
  const override = query === '' ? null : methodOverrideIn(service, query);
  if (override !== null) {
    return new AppError(
      'METHOD_OVERRIDE_REFUSED',
      `The query parameter ${override} would change the method of the call to ${service}; it is refused.`,
    );
  }
  if ((method === 'GET' || method === 'HEAD') && hasBody)
    return new AppError('BODY_NOT_ALLOWED', `A ${method} call to ${service} must not carry a body.`);
  return null;
}
