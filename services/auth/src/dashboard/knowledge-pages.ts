/**
 * The pages of /dashboard/knowledge: the search box and one page of the owner's documents (with
 * ?q= the best matches first, each with its matching passage marked), the form that adds a
 * document, the upload form (a .md or .txt file), the edit form and the step that confirms a
 * deletion. The kind is one of KNOWLEDGE_KINDS or a label of the owner's. Plain HTML, no script.
 */
import type { KnowledgeDocument } from '@pag/contracts';
import { KNOWLEDGE_KINDS, KNOWLEDGE_MAX_BYTES } from '@pag/contracts';
import { csrfField } from '../interactions/csrf.ts';
import type { SafeHtml } from '../interactions/html.ts';
import { errorBox, html } from '../interactions/html.ts';
import { highlighted, statusLine, textArea, when } from './brain-pages.ts';
import { dashboardPage } from './layout.ts';
import type { OwnerState } from './owner-context.ts';

const CURRENT = '/dashboard/knowledge';

/** What the owner typed, kept to fill the form again after a mistake. */
export interface KnowledgeFormValues {
  title: string;
  /** The chosen kind of KNOWLEDGE_KINDS. */
  kind: string;
  /** A label of the owner's, which wins over the chosen kind. */
  kindOther: string;
  content: string;
}

export const EMPTY_KNOWLEDGE_FORM: KnowledgeFormValues = {
  title: '',
  kind: 'other',
  kindOther: '',
  content: '',
};

export function knowledgeFormOf(document: KnowledgeDocument): KnowledgeFormValues {
  const listed = (KNOWLEDGE_KINDS as readonly string[]).includes(document.kind);
  return {
    title: document.title,
    kind: listed ? document.kind : 'other',
    kindOther: listed ? '' : document.kind,
    content: document.content,
  };
}

function kindFields(prefix: string, form: KnowledgeFormValues): SafeHtml {
  const options = KNOWLEDGE_KINDS.map(
    (kind) => html`<option value="${kind}"${kind === form.kind ? html` selected` : html``}>${kind}</option>`,
  );
  return html`<label for="${prefix}kind">Kind</label>
<select id="${prefix}kind" name="kind">${options}</select>
<label for="${prefix}kind-other">Or your own kind</label>
<input id="${prefix}kind-other" name="kind-other" type="text" maxlength="40" value="${form.kindOther}" aria-describedby="${prefix}kind-hint" autocomplete="off">
<p id="${prefix}kind-hint" class="note">Optional; replaces the kind above: lowercase letters, digits and "-", e.g. <code>recipes</code>.</p>`;
}

export interface KnowledgePageInput {
  owner: OwnerState;
  q: string;
  /** null: the brain did not answer. */
  documents: readonly KnowledgeDocument[] | null;
  nextCursor: string | null;
  /** Whether this is a later page (offers the way back to the first). */
  paging: boolean;
  form: KnowledgeFormValues;
  upload: KnowledgeFormValues;
  error?: string | undefined;
  uploadError?: string | undefined;
  listError?: string | undefined;
  notice?: string | undefined;
}

function documentRow(document: KnowledgeDocument): SafeHtml {
  const id = encodeURIComponent(document.id);
  const passage = document.highlight
    ? html`<br><span class="note">${highlighted(document.highlight)}</span>`
    : html``;
  return html`<tr id="doc-${document.id}">
<td><a href="/dashboard/knowledge/${id}">${document.title}</a>${passage}</td>
<td><code>${document.kind}</code></td>
<td>${when(document.updatedAt)}</td>
<td><a href="/dashboard/knowledge/${id}/delete" aria-label="Delete ${document.title}">Delete</a></td>
</tr>`;
}

function documentTable(input: KnowledgePageInput): SafeHtml {
  if (input.documents === null) return html``;
  if (input.documents.length === 0)
    return input.q
      ? html`<p>Nothing matches “${input.q}”.</p>`
      : html`<p>No document yet. Add one below.</p>`;
  const query = input.q ? `&q=${encodeURIComponent(input.q)}` : '';
  const older =
    input.nextCursor === null
      ? html``
      : html`<a href="/dashboard/knowledge?cursor=${encodeURIComponent(input.nextCursor)}${query}">Next page</a>`;
  const first = input.paging
    ? html`<a href="/dashboard/knowledge${input.q ? `?q=${encodeURIComponent(input.q)}` : ''}">First page</a> `
    : html``;
  return html`<table>
<caption class="note">${input.q ? 'Best matches first.' : 'Most recently changed first.'}</caption>
<thead><tr><th scope="col">Title</th><th scope="col">Kind</th><th scope="col">Changed</th><th scope="col"><span class="note">Action</span></th></tr></thead>
<tbody>${input.documents.map(documentRow)}</tbody>
</table>
<p>${first}${older}</p>`;
}

export function knowledgePage(input: KnowledgePageInput): string {
  const { owner } = input;
  const max = `${KNOWLEDGE_MAX_BYTES / 1024} KiB`;
  return dashboardPage({
    title: 'Knowledge',
    current: CURRENT,
    email: owner.email,
    csrf: owner.csrf,
    body: html`<p>Markdown documents your agents can read (<code>GET /api/v1/brain/knowledge-base</code>) and chat
draws on.</p>
${statusLine(input.notice)}
<form method="get" action="/dashboard/knowledge" role="search">
<label for="q">Search</label>
<input id="q" name="q" type="search" maxlength="500" value="${input.q}">
<button type="submit">Search</button>
</form>
${errorBox(input.listError)}
<section aria-labelledby="documents-title">
<h2 id="documents-title">${input.q ? 'Matching documents' : 'Your documents'}</h2>
${documentTable(input)}
</section>
<section aria-labelledby="add-title">
<h2 id="add-title">Add a document</h2>
${errorBox(input.error)}
<form method="post" action="/dashboard/knowledge">
${csrfField(owner.csrf)}
<label for="title">Title</label>
<input id="title" name="title" type="text" required maxlength="200" value="${input.form.title}" autocomplete="off">
${kindFields('', input.form)}
${textArea({ id: 'content', label: 'Content (markdown)', value: input.form.content, rows: 14, required: true, hint: `At most ${max}.` })}
<button type="submit">Add document</button>
</form>
</section>
<section aria-labelledby="upload-title">
<h2 id="upload-title">Upload a file</h2>
${errorBox(input.uploadError)}
<form method="post" action="/dashboard/knowledge/upload" enctype="multipart/form-data">
${csrfField(owner.csrf)}
<label for="file">Markdown or text file (.md, .txt; UTF-8, at most ${max})</label>
<input id="file" name="file" type="file" accept=".md,.markdown,.txt,text/markdown,text/plain" required>
<label for="upload-title-field">Title</label>
<input id="upload-title-field" name="title" type="text" maxlength="200" value="${input.upload.title}" aria-describedby="upload-title-hint" autocomplete="off">
<p id="upload-title-hint" class="note">Optional: the file's name (without .md or .txt) otherwise.</p>
${kindFields('upload-', input.upload)}
<button type="submit">Upload</button>
</form>
</section>`,
  });
}

export interface KnowledgeEditInput {
  owner: OwnerState;
  id: string;
  form: KnowledgeFormValues;
  error?: string | undefined;
}

export function knowledgeEditPage({ owner, id, form, error }: KnowledgeEditInput): string {
  return dashboardPage({
    title: `Document ${form.title}`,
    current: CURRENT,
    email: owner.email,
    csrf: owner.csrf,
    body: html`${errorBox(error)}
<form method="post" action="/dashboard/knowledge/${encodeURIComponent(id)}">
${csrfField(owner.csrf)}
<label for="title">Title</label>
<input id="title" name="title" type="text" required maxlength="200" value="${form.title}" autocomplete="off">
${kindFields('', form)}
${textArea({ id: 'content', label: 'Content (markdown)', value: form.content, rows: 20, required: true })}
<button type="submit">Save document</button>
</form>
<p><a href="/dashboard/knowledge/${encodeURIComponent(id)}/delete">Delete it</a> · <a href="/dashboard/knowledge">All documents</a></p>`,
  });
}

export function knowledgeDeletePage(owner: OwnerState, document: KnowledgeDocument): string {
  return dashboardPage({
    title: `Delete ${document.title}?`,
    current: CURRENT,
    email: owner.email,
    csrf: owner.csrf,
    body: html`<p>Deleting is final: agents and chat no longer find it.</p>
<form method="post" action="/dashboard/knowledge/${encodeURIComponent(document.id)}/delete">
${csrfField(owner.csrf)}
<button type="submit">Delete ${document.title}</button>
</form>
<p><a href="/dashboard/knowledge">Keep it</a></p>`,
  });
}
