/**
 * /dashboard/personas: the owner's personas, kept by the brain (BrainOwnerEndpoints over the bus,
 * brain-source.ts).
 *
 * - GET  /personas               the list (default marked, agents assigned) and the create form
 * - POST /personas               creates one → 303 to the list
 * - GET  /personas/:id           the edit form
 * - POST /personas/:id           saves it → 303 to the list
 * - POST /personas/:id/default   makes it the default → 303
 * - GET  /personas/:id/delete    asks to confirm; POST deletes → 303 (a refusal, such as deleting
 *                                the default, is shown on the list)
 *
 * What it enforces: tenancy (every message names the signed-in owner; another owner's persona is
 * "not found"); CSRF on every POST; a mistake or an unavailable brain re-shows the form with what
 * was typed (400/409/503); a GET while the brain is down says so with a 503.
 */
import type { Router } from '@koa/router';
import type { OwnerPersona } from '@pag/contracts';
import { AppError, BrainOwnerEndpoints, SOUL_CONTENT_MAX_BYTES } from '@pag/contracts';
import type { Context } from 'koa';
import { checkCsrf } from '../interactions/csrf.ts';
import { formBody, formBodyOf, formFields } from '../interactions/form-body.ts';
import { seeOther, sendPage } from '../interactions/page-security.ts';
import { queryField, typedText } from './brain-pages.ts';
import { brainSource, isShownRefusal } from './brain-source.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { ownerOf } from './owner-context.ts';
import type { PersonaFormValues, PersonasPageInput } from './personas-pages.ts';
import {
  EMPTY_PERSONA_FORM,
  personaDeletePage,
  personaEditPage,
  personaFormOf,
  personasPage,
} from './personas-pages.ts';

/** Percent-encoding may triple every byte of the instructions; 16 KB for the other fields. */
const personaFormBody = formBodyOf((SOUL_CONTENT_MAX_BYTES * 3) / 1024 + 16);

function readPersonaForm(fields: Record<string, string>): PersonaFormValues {
  return {
    name: fields.name ?? '',
    description: fields.description ?? '',
    soul: typedText(fields.soul_content),
    makeDefault: fields['make-default'] !== undefined,
  };
}

function saveRequest(form: PersonaFormValues, id?: string) {
  const description = form.description.trim();
  return {
    ...(id === undefined ? {} : { id }),
    name: form.name,
    description: description === '' ? null : description,
    soul_content: form.soul,
    ...(form.makeDefault ? { makeDefault: true } : {}),
  };
}

const idOf = (ctx: Context) => String(ctx.params.id ?? '');

export function registerPersonaRoutes(router: Router, deps: DashboardDeps): void {
  const agentNames = async (ctx: Context) =>
    new Map((await deps.core.agents.list(ownerOf(ctx).id)).map((agent) => [agent.id, agent.name]));

  async function renderList(
    ctx: Context,
    status: number,
    extras: Pick<PersonasPageInput, 'error' | 'listError' | 'notice'> & {
      form?: PersonaFormValues;
      /** A persona just saved (from the 303's query): named if it is one of the owner's. */
      savedId?: string;
    },
  ): Promise<void> {
    const owner = ownerOf(ctx);
    let personas: readonly OwnerPersona[] | null = null;
    let listError = extras.listError;
    try {
      personas = (await brainSource(deps, ctx).ask(BrainOwnerEndpoints.personasList, {})).personas;
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE')) throw error;
      listError ??= error.message;
      // A refusal of what was posted keeps its status; the list missing besides is said on the page.
      if (status < 400) status = error.status;
    }
    const saved = personas?.find((persona) => persona.id === extras.savedId);
    const page = personasPage({
      owner,
      personas,
      agentNames: await agentNames(ctx),
      form: extras.form ?? EMPTY_PERSONA_FORM,
      error: extras.error,
      listError,
      notice: saved ? `Saved “${saved.name}”.` : extras.notice,
    });
    sendPage(ctx, status, page);
  }

  /** The owner's persona by id: NOT_FOUND (the 404 page) for anything else. */
  async function personaOf(ctx: Context, id: string): Promise<OwnerPersona> {
    const { personas } = await brainSource(deps, ctx).ask(BrainOwnerEndpoints.personasList, {});
    const persona = personas.find((item) => item.id === id);
    if (persona === undefined) throw new AppError('NOT_FOUND', 'There is no such persona of yours.');
    return persona;
  }

  router.get('/personas', async (ctx) => {
    const notice = queryField(ctx.query, 'deleted') === '1' ? 'The persona was deleted.' : undefined;
    await renderList(ctx, 200, { notice, savedId: queryField(ctx.query, 'saved') });
  });

  router.post('/personas', personaFormBody, async (ctx) => {
    const fields = formFields(ctx);
    checkCsrf(ctx, fields);
    const form = readPersonaForm(fields);
    const brain = brainSource(deps, ctx);
    try {
      const persona = await brain.ask(BrainOwnerEndpoints.personaSave, saveRequest(form), 'persona');
      await brain.recordEdit({
        action: 'persona.create',
        target: persona.id,
        detail: { default: persona.isDefault },
      });
      seeOther(ctx, `/dashboard/personas?saved=${encodeURIComponent(persona.id)}`);
    } catch (error) {
      if (!isShownRefusal(error)) throw error;
      await renderList(ctx, error.status, { form, error: error.message });
    }
  });

  router.get('/personas/:id', async (ctx) => {
    const persona = await personaOf(ctx, idOf(ctx));
    sendPage(
      ctx,
      200,
      personaEditPage({
        owner: ownerOf(ctx),
        id: persona.id,
        form: personaFormOf(persona),
        isDefault: persona.isDefault,
      }),
    );
  });

  router.post('/personas/:id', personaFormBody, async (ctx) => {
    const fields = formFields(ctx);
    checkCsrf(ctx, fields);
    const id = idOf(ctx);
    const form = readPersonaForm(fields);
    const brain = brainSource(deps, ctx);
    try {
      const persona = await brain.ask(BrainOwnerEndpoints.personaSave, saveRequest(form, id), 'persona');
      await brain.recordEdit({
        action: 'persona.update',
        target: persona.id,
        detail: { default: persona.isDefault },
      });
      seeOther(ctx, `/dashboard/personas?saved=${encodeURIComponent(persona.id)}`);
    } catch (error) {
      if (!isShownRefusal(error)) throw error;
      const page = personaEditPage({ owner: ownerOf(ctx), id, form, isDefault: false, error: error.message });
      sendPage(ctx, error.status, page);
    }
  });

  router.post('/personas/:id/default', formBody, async (ctx) => {
    checkCsrf(ctx, formFields(ctx));
    const brain = brainSource(deps, ctx);
    try {
      const persona = await personaOf(ctx, idOf(ctx));
      await brain.ask(BrainOwnerEndpoints.personaSave, {
        ...saveRequest(personaFormOf(persona), persona.id),
        makeDefault: true,
      });
      await brain.recordEdit({ action: 'persona.default', target: persona.id });
      seeOther(ctx, `/dashboard/personas?saved=${encodeURIComponent(persona.id)}`);
    } catch (error) {
      if (!isShownRefusal(error)) throw error;
      await renderList(ctx, error.status, { listError: error.message });
    }
  });

  router.get('/personas/:id/delete', async (ctx) => {
    const persona = await personaOf(ctx, idOf(ctx));
    sendPage(
      ctx,
      200,
      personaDeletePage({ owner: ownerOf(ctx), persona, agentNames: await agentNames(ctx) }),
    );
  });

  router.post('/personas/:id/delete', formBody, async (ctx) => {
    checkCsrf(ctx, formFields(ctx));
    const brain = brainSource(deps, ctx);
    try {
      const persona = await personaOf(ctx, idOf(ctx));
      await brain.ask(BrainOwnerEndpoints.personaDelete, { id: persona.id });
      await brain.recordEdit({ action: 'persona.delete', target: persona.id });
      seeOther(ctx, '/dashboard/personas?deleted=1');
    } catch (error) {
      if (!isShownRefusal(error)) throw error;
      await renderList(ctx, error.status, { listError: error.message });
    }
  });
}
