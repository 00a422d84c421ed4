/**
 * The owner's own pages: sign up, sign in, and the minimal dashboard that says who is signed in
 * (the real dashboards arrive with issue 4).
 */
import { PASSWORD_MIN_LENGTH } from '../accounts/credentials.ts';
import { csrfField } from './csrf.ts';
import type { SafeHtml } from './html.ts';
import { errorBox, html, page, trusted } from './html.ts';

export interface OwnerFormInput {
  csrf: string;
  email?: string | undefined;
  error?: string | undefined;
}

export function signupPage({ csrf, email, error }: OwnerFormInput): string {
  return page({
    title: 'Create your owner account',
    body: html`${errorBox(error)}
<form method="post" action="/signup">
${csrfField(csrf)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required
 minlength="${PASSWORD_MIN_LENGTH}" aria-describedby="password-rule">
<p id="password-rule" class="note">At least ${PASSWORD_MIN_LENGTH} characters. A few unrelated words work well.</p>
<label for="confirm">Repeat the password</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}">
<button type="submit">Create account</button>
</form>
<p class="note">Already have an account? <a href="/login">Sign in</a>.</p>`,
  });
}

/** The email and password form of both sign-in pages (the owner's own, and an OAuth interaction's). */
export function signInForm(
  action: string,
  csrf: string,
  email: string | undefined,
  next?: string | undefined,
): SafeHtml {
  return html`<form method="post" action="${action}">
${csrfField(csrf)}
${next === undefined ? trusted('') : html`<input type="hidden" name="next" value="${next}">`}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`;
}

export function ownerLoginPage({
  csrf,
  email,
  error,
  next,
}: OwnerFormInput & { next?: string | undefined }): string {
  return page({
    title: 'Sign in',
    body: html`${errorBox(error)}
${signInForm('/login', csrf, email, next)}
<p class="note">No account yet? <a href="/signup">Create one</a>.</p>`,
  });
}
