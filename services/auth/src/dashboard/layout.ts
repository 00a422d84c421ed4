/**
 * The frame of every dashboard page: a wider page than the sign-in forms, the navigation between
 * the owner's queues, who is signed in, and the sign-out button. Plain HTML, no script.
 */
import { csrfField } from '../interactions/csrf.ts';
import type { SafeHtml } from '../interactions/html.ts';
import { html, page } from '../interactions/html.ts';

export const DASHBOARD_SECTIONS = [
  { path: '/dashboard/tokens', label: 'Tokens and agents' },
  { path: '/dashboard/handshakes', label: 'Handshakes' },
  { path: '/dashboard/devices', label: 'Devices' },
  { path: '/dashboard/personas', label: 'Personas' },
  { path: '/dashboard/knowledge', label: 'Knowledge' },
  { path: '/dashboard/identity', label: 'Identity' },
  { path: '/dashboard/memory', label: 'Memory' },
  { path: '/dashboard/brain', label: 'Language model' },
  { path: '/dashboard/triggers', label: 'Triggers' },
  { path: '/dashboard/services', label: 'Services' },
  { path: '/dashboard/audit', label: 'Audit log' },
] as const;

export type DashboardPath = (typeof DASHBOARD_SECTIONS)[number]['path'];

export interface DashboardPageInput {
  title: string;
  /** The section shown (marked aria-current in the navigation). */
  current: DashboardPath;
  email: string;
  csrf: string;
  body: SafeHtml;
}

export function dashboardPage({ title, current, email, csrf, body }: DashboardPageInput): string {
  const links = DASHBOARD_SECTIONS.map((section) =>
    section.path === current
      ? html`<li><a href="${section.path}" aria-current="page">${section.label}</a></li>`
      : html`<li><a href="${section.path}">${section.label}</a></li>`,
  );
  return page({
    title,
    wide: true,
    body: html`<nav aria-label="Dashboard"><ul class="nav">${links}</ul></nav>
<p class="note">Signed in as <strong>${email}</strong>.</p>
<form method="post" action="/logout" class="inline">
${csrfField(csrf)}
<button type="submit">Sign out</button>
</form>
${body}`,
  });
}
