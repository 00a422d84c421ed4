/**
 * /dashboard/devices: the owner's devices (pending, approved, denied, revoked, with fingerprints),
 * the claim form (/dashboard/devices/claim, the claim URL a device prints, `?user_code=` fills
 * it), one device's page, and its decisions: approve (scopes from the catalogue, `read` by
 * default, optional limits, an optional persona: persona-choice.ts; if it cannot be set the
 * approval stands and the page says so), deny, revoke. Every POST checks the CSRF token and ends in a 303 to
 * the device's page; every store call names the signed-in owner, so another owner's device is
 * "not found" (404 page).
 */
import type { Router } from '@koa/router';
import { AppError } from '@pag/contracts';
import type { Context } from 'koa';
import { deviceStatus } from '../devices/device-status.ts';
import { checkCsrf } from '../interactions/csrf.ts';
import { formBody, formFields } from '../interactions/form-body.ts';
import { ownerRequest } from '../interactions/owner-request.ts';
import { seeOther, sendPage } from '../interactions/page-security.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { approvalOf, readApproveForm } from './devices-form.ts';
import { claimPage, devicePage, devicesListPage } from './devices-pages.ts';
import { ownerOf } from './owner-context.ts';
import { assignChosenPersona, PERSONA_FIELD, personaChoices } from './persona-choice.ts';

/** Shown after an approval whose chosen persona could not be set (the reason is in the log). */
const PERSONA_NOT_SET =
  'The device was approved, but its persona was not set (the brain did not answer or refused). It follows your default persona; choose another on Tokens and agents.';

function deviceIdOf(ctx: Context): string {
  return (ctx.params as Record<string, string | undefined>).deviceId ?? '';
}

export function registerDeviceRoutes(router: Router, deps: DashboardDeps): void {
  const { logger } = deps;
  const { devices } = deps.core;

  /** Reads the form and checks its CSRF token; an action's own fields are its business. */
  const postedForm = (ctx: Context) => {
    const form = formFields(ctx);
    checkCsrf(ctx, form);
    return form;
  };

  router.get('/devices', async (ctx) => {
    const owner = ownerOf(ctx);
    sendPage(ctx, 200, devicesListPage(owner, await devices.list(owner.id)));
  });

  router.get('/devices/claim', (ctx) => {
    const typed = typeof ctx.query.user_code === 'string' ? ctx.query.user_code : '';
    sendPage(ctx, 200, claimPage(ownerOf(ctx), typed));
  });

  router.post('/devices/claim', formBody, async (ctx) => {
    const owner = ownerOf(ctx);
    const typed = postedForm(ctx).user_code ?? '';
    try {
      const device = await devices.claim(owner.id, typed, ownerRequest(ctx));
      logger.info({ accountId: owner.id, deviceId: device.id }, 'device claimed');
      seeOther(ctx, `/dashboard/devices/${device.id}`);
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND')
        return sendPage(ctx, 404, claimPage(owner, typed, error.message));
      throw error;
    }
  });

  router.get('/devices/:deviceId', async (ctx) => {
    const owner = ownerOf(ctx);
    const device = await devices.get(owner.id, deviceIdOf(ctx));
    const personas = deviceStatus(device) === 'pending' ? await personaChoices(deps, ctx) : [];
    const personaNote = ctx.query.persona === 'unset' ? PERSONA_NOT_SET : undefined;
    sendPage(ctx, 200, devicePage({ owner, device, personas, personaNote }));
  });

  router.post('/devices/:deviceId/approve', formBody, async (ctx) => {
    const owner = ownerOf(ctx);
    const id = deviceIdOf(ctx);
    const form = postedForm(ctx);
    const values = readApproveForm(form);
    let agentId: string;
    try {
      const { agent } = await devices.approve(owner.id, id, approvalOf(values), ownerRequest(ctx));
      logger.info({ accountId: owner.id, deviceId: id, agentId: agent.id }, 'device approved');
      agentId = agent.id;
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'INVALID_REQUEST') throw error;
      const device = await devices.get(owner.id, id);
      const personas = await personaChoices(deps, ctx);
      sendPage(ctx, 400, devicePage({ owner, device, form: values, error: error.message, personas }));
      return;
    }
    const unset = await assignChosenPersona(deps, ctx, agentId, form[PERSONA_FIELD] ?? '');
    seeOther(ctx, `/dashboard/devices/${id}${unset === null ? '' : '?persona=unset'}`);
  });

  // Deny (a pending device) and revoke (an approved one): both final, both back to the device's page.
  for (const decision of ['deny', 'revoke'] as const) {
    router.post(`/devices/:deviceId/${decision}`, formBody, async (ctx) => {
      const owner = ownerOf(ctx);
      const id = deviceIdOf(ctx);
      postedForm(ctx);
      await devices[decision](owner.id, id, ownerRequest(ctx));
      logger.info(
        { accountId: owner.id, deviceId: id },
        decision === 'deny' ? 'device denied' : 'device revoked',
      );
      seeOther(ctx, `/dashboard/devices/${id}`);
    });
  }
}
