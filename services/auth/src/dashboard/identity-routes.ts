/**
 * /dashboard/identity: the owner's identity, kept by the brain (identityGet / identitySet over
 * the bus, brain-source.ts). GET shows the form filled in; POST saves every field (empty clears
 * the time zone, locale and bio) → 303 back. A time zone that is not an IANA name or a locale that
 * is not a BCP 47 tag is a 400 naming the field, with what was typed; an unavailable brain is a
 * 503 saying so (the form keeps what was typed). CSRF on the POST.
 */
import type { Router } from '@koa/router';
import { AppError, BrainOwnerEndpoints } from '@pag/contracts';
import { checkCsrf } from '../interactions/csrf.ts';
import { formBody, formFields } from '../interactions/form-body.ts';
import { seeOther, sendPage } from '../interactions/page-security.ts';
import { queryField, typedText } from './brain-pages.ts';
import { brainSource, isShownRefusal } from './brain-source.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import type { IdentityFormValues } from './identity-pages.ts';
import { identityPage } from './identity-pages.ts';
import { ownerOf } from './owner-context.ts';

const orNull = (text: string) => (text.trim() === '' ? null : text.trim());

export function registerIdentityRoutes(router: Router, deps: DashboardDeps): void {
  router.get('/identity', async (ctx) => {
    const owner = ownerOf(ctx);
    const notice = queryField(ctx.query, 'saved') === '1' ? 'Your identity was saved.' : undefined;
    try {
      const identity = await brainSource(deps, ctx).ask(BrainOwnerEndpoints.identityGet, {});
      const form: IdentityFormValues = {
        name: identity.name,
        timezone: identity.timezone ?? '',
        locale: identity.locale ?? '',
        summary: identity.summary ?? '',
      };
      sendPage(ctx, 200, identityPage({ owner, form, notice }));
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE')) throw error;
      sendPage(ctx, error.status, identityPage({ owner, form: null, error: error.message }));
    }
  });

  router.post('/identity', formBody, async (ctx) => {
    const fields = formFields(ctx);
    checkCsrf(ctx, fields);
    const form: IdentityFormValues = {
      name: fields.name ?? '',
      timezone: fields.timezone ?? '',
      locale: fields.locale ?? '',
      summary: typedText(fields.summary),
    };
    const brain = brainSource(deps, ctx);
    try {
      await brain.ask(
        BrainOwnerEndpoints.identitySet,
        {
          name: form.name,
          timezone: orNull(form.timezone),
          locale: orNull(form.locale),
          summary: orNull(form.summary),
        },
        'identity',
      );
      await brain.recordEdit({ action: 'identity.set', target: null });
      seeOther(ctx, '/dashboard/identity?saved=1');
    } catch (error) {
      if (!isShownRefusal(error)) throw error;
      sendPage(ctx, error.status, identityPage({ owner: ownerOf(ctx), form, error: error.message }));
    }
  });
}
