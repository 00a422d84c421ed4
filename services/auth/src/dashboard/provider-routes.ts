/**
 * /dashboard/brain: the owner's own language-model provider, kept by the brain (providerGet /
 * providerSet / providerClear over the bus, brain-source.ts; the brain stores the key encrypted).
 *
 * - GET  /brain         which provider applies (ProviderSettings.source) and the form
 * - POST /brain         sets base URL, model and, when typed, a new key → 303 back
 * - POST /brain/clear   removes the owner's provider: the deployment's applies → 303 back
 *
 * The key is write-only: never put in a page, a log line or the audit log; an empty key field
 * keeps the stored one, "no API key" stores none. A mistake re-shows the form with the URL and
 * model typed (never the key); an unavailable brain is a 503 saying so. CSRF on every POST.
 */
import type { Router } from '@koa/router';
import type { ProviderSettings } from '@pag/contracts';
import { BrainOwnerEndpoints } from '@pag/contracts';
import type { Context } from 'koa';
import { checkCsrf } from '../interactions/csrf.ts';
import { formBody, formFields } from '../interactions/form-body.ts';
import { seeOther, sendPage } from '../interactions/page-security.ts';
import { queryField } from './brain-pages.ts';
import { brainSource, isShownRefusal } from './brain-source.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { ownerOf } from './owner-context.ts';
import type { ProviderFormValues } from './provider-pages.ts';
import { providerPage } from './provider-pages.ts';

const NOTICES = new Map([
  ['saved', 'Your provider was saved.'],
  ['removed', 'Your provider was removed: the deployment’s default applies.'],
]);

export function registerProviderRoutes(router: Router, deps: DashboardDeps): void {
  async function render(
    ctx: Context,
    status: number,
    extras: { form?: ProviderFormValues; error?: string; notice?: string | undefined },
  ): Promise<void> {
    let settings: ProviderSettings | null = null;
    let { error } = extras;
    try {
      settings = await brainSource(deps, ctx).ask(BrainOwnerEndpoints.providerGet, {});
    } catch (failure) {
      if (!isShownRefusal(failure)) throw failure;
      error ??= failure.message;
      // A refusal of what was posted keeps its status; the settings missing besides are said on the page.
      if (status < 400) status = failure.status;
    }
    const own = settings?.source === 'owner';
    const form = extras.form ?? {
      baseUrl: own ? (settings?.baseUrl ?? '') : '',
      model: own ? (settings?.model ?? '') : '',
      noKey: own && settings?.hasApiKey === false,
    };
    sendPage(
      ctx,
      status,
      providerPage({ owner: ownerOf(ctx), settings, form, error, notice: extras.notice }),
    );
  }

  router.get('/brain', async (ctx) => {
    await render(ctx, 200, { notice: NOTICES.get(queryField(ctx.query, 'done')) });
  });

  router.post('/brain', formBody, async (ctx) => {
    const fields = formFields(ctx);
    checkCsrf(ctx, fields);
    const form: ProviderFormValues = {
      baseUrl: (fields['base-url'] ?? '').trim(),
      model: (fields.model ?? '').trim(),
      noKey: fields['no-key'] !== undefined,
    };
    const typedKey = (fields['api-key'] ?? '').trim();
    const brain = brainSource(deps, ctx);
    try {
      await brain.ask(
        BrainOwnerEndpoints.providerSet,
        {
          baseUrl: form.baseUrl,
          model: form.model,
          ...(form.noKey ? { apiKey: null } : typedKey === '' ? {} : { apiKey: typedKey }),
        },
        'provider',
      );
      await brain.recordEdit({
        action: 'provider.set',
        target: null,
        detail: { keyChanged: form.noKey || typedKey !== '' },
      });
      seeOther(ctx, '/dashboard/brain?done=saved');
    } catch (error) {
      if (!isShownRefusal(error)) throw error;
      await render(ctx, error.status, { form, error: error.message });
    }
  });

  router.post('/brain/clear', formBody, async (ctx) => {
    checkCsrf(ctx, formFields(ctx));
    const brain = brainSource(deps, ctx);
    try {
      await brain.ask(BrainOwnerEndpoints.providerClear, {});
      await brain.recordEdit({ action: 'provider.clear', target: null });
      seeOther(ctx, '/dashboard/brain?done=removed');
    } catch (error) {
      if (!isShownRefusal(error)) throw error;
      await render(ctx, error.status, { error: error.message });
    }
  });
}
