/**
 * The rules an owner's email and password follow, checked before anything is stored or hashed.
 *
 * Emails are trimmed and lowercased (one account per mailbox, however it is typed). Passwords
 * are at least 12 characters (NIST SP 800-63B allows any characters, so no composition rules)
 * and at most 1,024, which bounds the work an anonymous request can ask of the hasher.
 */

import type { Plan } from '@pag/contracts';
import { AppError, PLANS } from '@pag/contracts';
import { z } from 'zod';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;
const EMAIL_MAX_LENGTH = 254;

const Email = z.email();

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The normalised email, or an INVALID_REQUEST error saying why it is not one. */
export function validEmail(email: string): string {
  const normalised = normaliseEmail(email);
  if (normalised.length > EMAIL_MAX_LENGTH || !Email.safeParse(normalised).success) {
    throw new AppError('INVALID_REQUEST', 'Enter a valid email address, such as name@example.com.');
  }
  return normalised;
}

export function validPassword(password: string): string {
  // Counted in code points, as a person counts characters.
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) {
    throw new AppError('INVALID_REQUEST', `The password needs at least ${PASSWORD_MIN_LENGTH} characters.`);
  }
  if (length > PASSWORD_MAX_LENGTH) {
    throw new AppError('INVALID_REQUEST', `The password may have at most ${PASSWORD_MAX_LENGTH} characters.`);
  }
  return password;
}

export function validPlan(plan: string): Plan {
  if (!(PLANS as readonly string[]).includes(plan)) {
    throw new AppError('INVALID_REQUEST', `The plan is one of ${PLANS.join(', ')}.`);
  }
  return plan as Plan;
}

/** Whether a login attempt is worth hashing at all: anything else fails as a wrong password does. */
export function plausibleCredentials(email: string, password: string): boolean {
  return (
    email.length <= EMAIL_MAX_LENGTH && password.length > 0 && [...password].length <= PASSWORD_MAX_LENGTH
  );
}
