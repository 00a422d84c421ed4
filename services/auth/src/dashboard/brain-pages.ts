/**
 * What the brain's pages (personas, knowledge, identity, memory, provider) share: the time of an
 * item, a multi-line field that keeps what was typed, the status line after a change, and the
 * plain statement that the brain is unavailable. Plain HTML, no script.
 */
import type { SafeHtml } from '../interactions/html.ts';
import { html } from '../interactions/html.ts';

/** Minute precision, UTC, machine-readable in the datetime attribute. */
export function when(iso: string): SafeHtml {
  const text = `${iso.slice(0, 16).replace('T', ' ')} UTC`;
  return html`<time datetime="${iso}">${text}</time>`;
}

/**
 * A labelled textarea. The newline after the opening tag is there because HTML drops the first
 * newline of a textarea's content: text that starts with an empty line keeps it.
 */
export function textArea(input: {
  id: string;
  label: string;
  value: string;
  rows?: number;
  required?: boolean;
  hint?: SafeHtml | string;
}): SafeHtml {
  const hint = input.hint ? html`<p id="${input.id}-hint" class="note">${input.hint}</p>` : html``;
  const described = input.hint ? html` aria-describedby="${input.id}-hint"` : html``;
  return html`<label for="${input.id}">${input.label}</label>
<textarea id="${input.id}" name="${input.id}" rows="${input.rows ?? 12}"${input.required ? html` required` : html``}${described}>
${input.value}</textarea>
${hint}`;
}

/** A form's multi-line field as the owner meant it: browsers send line breaks as CRLF. */
export function typedText(value: string | undefined): string {
  return (value ?? '').replaceAll('\r\n', '\n');
}

/** A confirmation after a change (from the 303's query), or nothing. */
export function statusLine(text: string | undefined): SafeHtml {
  return text ? html`<p class="ok" role="status">${text}</p>` : html``;
}

/** The query's value of a field, or '' (a repeated field reads as absent). */
export function queryField(query: Record<string, string | string[] | undefined>, name: string): string {
  const value = query[name];
  return typeof value === 'string' ? value : '';
}

/**
 * A search passage with its matched words marked: the brain puts them between « and »
 * (ts_headline); each piece is escaped, then the matches are wrapped in <mark>.
 */
export function highlighted(passage: string): SafeHtml {
  const pieces = passage.split(/«|»/);
  return html`${pieces.map((piece, index) => (index % 2 === 1 ? html`<mark>${piece}</mark>` : html`${piece}`))}`;
}
