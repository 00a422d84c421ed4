/** How our page cookies (owner session, CSRF secret) are set. */

export interface CookiePolicy {
  /** Whether cookies get the Secure flag (PUBLIC_URL is https). */
  secure: boolean;
}

/** Signed, HttpOnly, SameSite=Lax, for the whole origin. */
export function pageCookie(policy: CookiePolicy) {
  return {
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    secure: policy.secure,
    path: '/',
    overwrite: true,
  } as const;
}
