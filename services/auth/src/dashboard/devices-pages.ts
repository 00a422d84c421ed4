/**
 * The pages of /dashboard/devices: the owner's devices by state with their key fingerprints, the
 * claim form (user code), and one device with its decisions (approve with scopes and limits, deny,
 * revoke). Plain HTML forms, every field labelled, no script.
 */

import type { OwnerPersona } from '@pag/contracts';
import { groupedFingerprint } from '../devices/device-keys.ts';
import { deviceStatus } from '../devices/device-status.ts';
import { csrfField } from '../interactions/csrf.ts';
import { errorBox, html, type SafeHtml } from '../interactions/html.ts';
import type { DeviceRecord } from '../store/device-store.ts';
import type { ApproveFormValues } from './devices-form.ts';
import { DEFAULT_APPROVE_FORM, DEVICE_SCOPE_CHOICES } from './devices-form.ts';
import { dashboardPage } from './layout.ts';
import { approvalPersonaField } from './persona-choice.ts';

export interface DevicesPageOwner {
  email: string;
  csrf: string;
}

const SECTIONS = [
  { status: 'pending', title: 'Waiting for your decision' },
  { status: 'approved', title: 'Approved' },
  { status: 'denied', title: 'Denied' },
  { status: 'revoked', title: 'Revoked' },
] as const;

const when = (date: Date | null) => (date === null ? '' : date.toISOString().replace('T', ' ').slice(0, 16));

function fingerprint(device: DeviceRecord): SafeHtml {
  return html`<code>${groupedFingerprint(device.fingerprint)}</code>`;
}

function grantSummary(device: DeviceRecord): SafeHtml {
  const agent = device.agent;
  if (agent === null) return html``;
  const limits = [
    agent.dailyLimit === null ? null : `${agent.dailyLimit} a day`,
    agent.monthlyLimit === null ? null : `${agent.monthlyLimit} a month`,
  ].filter((text) => text !== null);
  return html`${agent.scopes.join(' ')}${limits.length > 0 ? html`<br><span class="note">${limits.join(', ')}</span>` : ''}`;
}

function action(device: DeviceRecord, verb: 'deny' | 'revoke', label: string, csrf: string): SafeHtml {
  return html`<form method="post" action="/dashboard/devices/${device.id}/${verb}" class="inline">
${csrfField(csrf)}
<button type="submit" aria-label="${label} ${device.name}">${label}</button>
</form>`;
}

function row(device: DeviceRecord, csrf: string): SafeHtml {
  const status = deviceStatus(device);
  const actions =
    status === 'pending'
      ? html`<a href="/dashboard/devices/${device.id}">Review and approve</a> ${action(device, 'deny', 'Deny', csrf)}`
      : status === 'approved'
        ? action(device, 'revoke', 'Revoke', csrf)
        : html``;
  return html`<tr>
<td><a href="/dashboard/devices/${device.id}">${device.name}</a></td>
<td>${fingerprint(device)}</td>
<td>${when(device.createdAt)}</td>
<td>${grantSummary(device)}</td>
<td>${actions}</td>
</tr>`;
}

function claimForm(csrf: string, userCode = '', error?: string): SafeHtml {
  return html`${errorBox(error)}
<form method="post" action="/dashboard/devices/claim">
${csrfField(csrf)}
<label for="user_code">User code shown by the device</label>
<input id="user_code" name="user_code" value="${userCode}" placeholder="XXXX-XXXX" autocomplete="off" required>
<button type="submit">Claim device</button>
</form>`;
}

export function devicesListPage(owner: DevicesPageOwner, devices: DeviceRecord[]): string {
  const sections = SECTIONS.map(({ status, title }) => {
    const mine = devices.filter((device) => deviceStatus(device) === status);
    const body =
      mine.length === 0
        ? html`<p class="note">None.</p>`
        : html`<table>
<thead><tr><th scope="col">Device</th><th scope="col">Key fingerprint (SHA-256)</th><th scope="col">Registered (UTC)</th><th scope="col">Scopes and limits</th><th scope="col">Actions</th></tr></thead>
<tbody>${mine.map((device) => row(device, owner.csrf))}</tbody>
</table>`;
    return html`<section><h2>${title}</h2>${body}</section>`;
  });
  return dashboardPage({
    title: 'Devices',
    current: '/dashboard/devices',
    email: owner.email,
    csrf: owner.csrf,
    body: html`<p>A device registers its Ed25519 key and shows you a user code. Claim it with that code,
compare the key fingerprint with the one the device shows, then approve or deny it.</p>
<section><h2>Claim a device</h2>${claimForm(owner.csrf)}</section>
${sections}`,
  });
}

export function claimPage(owner: DevicesPageOwner, userCode: string, error?: string): string {
  return dashboardPage({
    title: 'Claim a device',
    current: '/dashboard/devices',
    email: owner.email,
    csrf: owner.csrf,
    body: html`<p>Type the user code the device shows. Claiming makes the device yours to approve or deny;
it gets no access until you approve it.</p>
${claimForm(owner.csrf, userCode, error)}`,
  });
}

function approveForm(
  device: DeviceRecord,
  csrf: string,
  values: ApproveFormValues,
  personas: readonly OwnerPersona[] | null,
): SafeHtml {
  const boxes = DEVICE_SCOPE_CHOICES.map(
    (choice) =>
      html`<label for="${choice.field}"><input type="checkbox" id="${choice.field}" name="${choice.field}" value="on"${
        values.scopes.includes(choice.scope) ? html` checked` : ''
      }><code>${choice.scope}</code>: ${choice.description}</label>`,
  );
  return html`<form method="post" action="/dashboard/devices/${device.id}/approve">
${csrfField(csrf)}
<fieldset><legend>Scopes</legend>${boxes}
<label for="extra">Further scopes (space-separated, e.g. services:github:read)</label>
<input id="extra" name="extra" value="${values.extra}" autocomplete="off">
</fieldset>
<label for="daily">Daily request limit (empty: none)</label>
<input id="daily" name="daily" inputmode="numeric" value="${values.daily}">
<label for="monthly">Monthly request limit (empty: none)</label>
<input id="monthly" name="monthly" inputmode="numeric" value="${values.monthly}">
${approvalPersonaField('persona', personas)}
<button type="submit">Approve ${device.name}</button>
</form>`;
}

export interface DevicePageInput {
  owner: DevicesPageOwner;
  device: DeviceRecord;
  form?: ApproveFormValues;
  error?: string | undefined;
  /** The owner's personas for the approval's choice; null: the brain did not answer. */
  personas?: readonly OwnerPersona[] | null;
  /** Why the persona chosen at approval was not set (the approval stands). */
  personaNote?: string | undefined;
}

export function devicePage({
  owner,
  device,
  form = DEFAULT_APPROVE_FORM,
  error,
  personas = [],
  personaNote,
}: DevicePageInput): string {
  const status = deviceStatus(device);
  const decisions =
    status === 'pending'
      ? html`<h2>Decide</h2>
<p>Approve only if this fingerprint matches the one the device shows.</p>
${approveForm(device, owner.csrf, form, personas)}
${action(device, 'deny', 'Deny', owner.csrf)}`
      : status === 'approved'
        ? html`<h2>Revoke</h2>
<p>Revoking is immediate and final: every token of the device stops working and its key cannot register again.</p>
${action(device, 'revoke', 'Revoke', owner.csrf)}`
        : html``;
  return dashboardPage({
    title: `Device ${device.name}`,
    current: '/dashboard/devices',
    email: owner.email,
    csrf: owner.csrf,
    body: html`${errorBox(error)}
${errorBox(personaNote)}
<dl>
<dt>Status</dt><dd>${status}</dd>
<dt>Key fingerprint (SHA-256)</dt><dd>${fingerprint(device)}</dd>
<dt>Device id (its OAuth client id)</dt><dd><code>${device.id}</code></dd>
<dt>Registered (UTC)</dt><dd>${when(device.createdAt)}</dd>
${device.decidedAt === null ? '' : html`<dt>Decided (UTC)</dt><dd>${when(device.decidedAt)}</dd>`}
${device.agent === null ? '' : html`<dt>Scopes and limits</dt><dd>${grantSummary(device)}</dd>`}
</dl>
${decisions}
<p><a href="/dashboard/devices">All devices</a></p>`,
  });
}
