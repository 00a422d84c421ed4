/**
 * /dashboard/knowledge: the owner's knowledge base, kept by the brain (BrainOwnerEndpoints over
 * the bus, brain-source.ts).
 *
 * - GET  /knowledge                ?q= searches (the brain's full-text search, passages marked),
 *                                  ?cursor= pages; the add and upload forms
 * - POST /knowledge                adds a document → 303 to the list
 * - POST /knowledge/upload         adds a .md or .txt file (multipart, knowledge-upload.ts) → 303
 * - GET  /knowledge/:id            the edit form; POST saves it → 303
 * - GET  /knowledge/:id/delete     asks to confirm; POST deletes → 303
 *
 * What it enforces: tenancy (every message names the signed-in owner; another owner's document is
 * "not found"); CSRF on every POST (the upload's token travels in its multipart body); a mistake
 * or an unavailable brain re-shows the form with what was typed; a GET while the brain is down
 * says so with a 503.
 */
import type { Router } from '@koa/router';
import type { KnowledgeBase } from '@pag/contracts';
import { AppError, BRAIN_PAGE_DEFAULT, BrainOwnerEndpoints, KNOWLEDGE_MAX_BYTES } from '@pag/contracts';
import type { Context } from 'koa';
import { checkCsrf } from '../interactions/csrf.ts';
import { formBody, formBodyOf, formFields } from '../interactions/form-body.ts';
import { seeOther, sendPage } from '../interactions/page-security.ts';
import { queryField, typedText } from './brain-pages.ts';
import { brainSource, isShownRefusal } from './brain-source.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import type { KnowledgeFormValues, KnowledgePageInput } from './knowledge-pages.ts';
import {
  EMPTY_KNOWLEDGE_FORM,
  knowledgeDeletePage,
  knowledgeEditPage,
  knowledgeFormOf,
  knowledgePage,
} from './knowledge-pages.ts';
import { readUpload, uploadedText } from './knowledge-upload.ts';
import { ownerOf } from './owner-context.ts';

/** Percent-encoding may triple every byte of the content; 16 KB for the other fields. */
const knowledgeFormBody = formBodyOf((KNOWLEDGE_MAX_BYTES * 3) / 1024 + 16);

function readKnowledgeForm(fields: Record<string, string>): KnowledgeFormValues {
  return {
    title: fields.title ?? '',
    kind: fields.kind ?? '',
    kindOther: (fields['kind-other'] ?? '').trim(),
    content: typedText(fields.content),
  };
}

function saveRequest(form: KnowledgeFormValues, id?: string) {
  return {
    ...(id === undefined ? {} : { id }),
    title: form.title,
    kind: form.kindOther === '' ? form.kind : form.kindOther,
    content: form.content,
  };
}

const idOf = (ctx: Context) => String(ctx.params.id ?? '');

type ListExtras = Partial<
  Pick<KnowledgePageInput, 'form' | 'upload' | 'error' | 'uploadError' | 'listError' | 'notice'>
>;

export function registerKnowledgeRoutes(router: Router, deps: DashboardDeps): void {
  async function renderList(ctx: Context, status: number, extras: ListExtras): Promise<void> {
    const q = queryField(ctx.query, 'q').trim();
    const cursor = queryField(ctx.query, 'cursor');
    let base: KnowledgeBase | null = null;
    let { listError } = extras;
    try {
      base = await brainSource(deps, ctx).ask(
        BrainOwnerEndpoints.knowledgeList,
        { limit: BRAIN_PAGE_DEFAULT, ...(q === '' ? {} : { q }), ...(cursor === '' ? {} : { cursor }) },
        'search',
      );
    } catch (error) {
      if (!isShownRefusal(error)) throw error;
      listError ??= error.message;
      // A refusal of what was posted keeps its status; the list missing besides is said on the page.
      if (status < 400) status = error.status;
    }
    const page = knowledgePage({
      owner: ownerOf(ctx),
      q,
      documents: base?.documents ?? null,
      nextCursor: base?.nextCursor ?? null,
      paging: cursor !== '',
      form: EMPTY_KNOWLEDGE_FORM,
      upload: EMPTY_KNOWLEDGE_FORM,
      ...extras,
      listError,
    });
    sendPage(ctx, status, page);
  }

  router.get('/knowledge', async (ctx) => {
    const notice =
      queryField(ctx.query, 'saved') === '1'
        ? 'The document was saved.'
        : queryField(ctx.query, 'deleted') === '1'
          ? 'The document was deleted.'
          : undefined;
    await renderList(ctx, 200, { notice });
  });

  router.post('/knowledge', knowledgeFormBody, async (ctx) => {
    const fields = formFields(ctx);
    checkCsrf(ctx, fields);
    const form = readKnowledgeForm(fields);
    const brain = brainSource(deps, ctx);
    try {
      const document = await brain.ask(BrainOwnerEndpoints.knowledgeSave, saveRequest(form), 'document');
      await brain.recordEdit({
        action: 'knowledge.create',
        target: document.id,
        detail: { kind: document.kind },
      });
      seeOther(ctx, '/dashboard/knowledge?saved=1');
    } catch (error) {
      if (!isShownRefusal(error)) throw error;
      await renderList(ctx, error.status, { form, error: error.message });
    }
  });

  // Before /knowledge/:id, which the path matches too: the router runs the first match.
  router.post('/knowledge/upload', async (ctx) => {
    const { fields, file } = await readUpload(ctx);
    checkCsrf(ctx, fields);
    const typed = readKnowledgeForm(fields);
    const brain = brainSource(deps, ctx);
    try {
      const { title, content } = uploadedText(file);
      const form = { ...typed, title: typed.title.trim() === '' ? title : typed.title, content };
      const document = await brain.ask(BrainOwnerEndpoints.knowledgeSave, saveRequest(form), 'document');
      await brain.recordEdit({
        action: 'knowledge.upload',
        target: document.id,
        detail: { kind: document.kind, bytes: file?.bytes.length ?? 0 },
      });
      seeOther(ctx, '/dashboard/knowledge?saved=1');
    } catch (error) {
      if (!isShownRefusal(error)) throw error;
      await renderList(ctx, error.status, { upload: typed, uploadError: error.message });
    }
  });

  router.get('/knowledge/:id', async (ctx) => {
    const document = await brainSource(deps, ctx).ask(BrainOwnerEndpoints.knowledgeGet, { id: idOf(ctx) });
    sendPage(
      ctx,
      200,
      knowledgeEditPage({ owner: ownerOf(ctx), id: document.id, form: knowledgeFormOf(document) }),
    );
  });

  router.post('/knowledge/:id', knowledgeFormBody, async (ctx) => {
    const fields = formFields(ctx);
    checkCsrf(ctx, fields);
    const id = idOf(ctx);
    const form = readKnowledgeForm(fields);
    const brain = brainSource(deps, ctx);
    try {
      const document = await brain.ask(BrainOwnerEndpoints.knowledgeSave, saveRequest(form, id), 'document');
      await brain.recordEdit({
        action: 'knowledge.update',
        target: document.id,
        detail: { kind: document.kind },
      });
      seeOther(ctx, '/dashboard/knowledge?saved=1');
    } catch (error) {
      if (!isShownRefusal(error)) throw error;
      sendPage(ctx, error.status, knowledgeEditPage({ owner: ownerOf(ctx), id, form, error: error.message }));
    }
  });

  router.get('/knowledge/:id/delete', async (ctx) => {
    const document = await brainSource(deps, ctx).ask(BrainOwnerEndpoints.knowledgeGet, { id: idOf(ctx) });
    sendPage(ctx, 200, knowledgeDeletePage(ownerOf(ctx), document));
  });

  router.post('/knowledge/:id/delete', formBody, async (ctx) => {
    checkCsrf(ctx, formFields(ctx));
    const brain = brainSource(deps, ctx);
    const id = idOf(ctx);
    try {
      await brain.ask(BrainOwnerEndpoints.knowledgeDelete, { id });
      await brain.recordEdit({ action: 'knowledge.delete', target: id });
      seeOther(ctx, '/dashboard/knowledge?deleted=1');
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE')) throw error;
      await renderList(ctx, error.status, { listError: error.message });
    }
  });
}
