/**
 * The one template helper of our pages: a tagged template that escapes every interpolated value
 * unless it is already-built HTML, and the page layout (lang, viewport, one heading, inline style).
 *
 * Escaping covers the five characters that matter in text and in quoted attribute values, so
 * `value="${x}"` is safe too. Values are never placed in unquoted attributes, scripts or styles.
 */

const SAFE = Symbol('safe-html');

export interface SafeHtml {
  readonly [SAFE]: true;
  readonly text: string;
}

type Interpolation = SafeHtml | string | number | null | undefined | false | readonly Interpolation[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

function isSafe(value: unknown): value is SafeHtml {
  return typeof value === 'object' && value !== null && SAFE in value;
}

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map((item: Interpolation) => render(item)).join('');
  if (isSafe(value)) return value.text;
  return escapeHtml(String(value));
}

/** Marks text as HTML; only for constants and the output of `html`. */
export function trusted(text: string): SafeHtml {
  return { [SAFE]: true, text };
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] ?? '');
  });
  return trusted(text);
}

const STYLE = trusted(`
body{font-family:system-ui,sans-serif;line-height:1.5;margin:0;color:#1b1b1b;background:#f6f6f4}
main{max-width:32rem;margin:3rem auto;padding:2rem;background:#fff;border:1px solid #ddd;border-radius:.5rem}
h1{font-size:1.5rem;margin-top:0}
label{display:block;font-weight:600;margin-top:1rem}
input{display:block;width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;margin-top:.25rem}
button{margin-top:1.25rem;padding:.6rem 1.2rem;font-size:1rem;cursor:pointer}
.actions{display:flex;gap:1rem;align-items:flex-end}
.error{border-left:4px solid #b00020;padding:.5rem 1rem;background:#fdecee}
.note{color:#555;font-size:.9rem}
main.wide{max-width:60rem}
.nav{display:flex;gap:1.5rem;list-style:none;padding:0;margin:0 0 1rem}
.nav a[aria-current]{font-weight:700}
form.inline{display:inline}
form.inline button{margin-top:0}
table{border-collapse:collapse;width:100%;margin-top:1rem}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #ddd;vertical-align:top}
fieldset{border:1px solid #ddd;margin-top:1rem}
textarea,select{display:block;width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;margin-top:.25rem}
textarea{font-family:ui-monospace,monospace}
mark{background:#fff3a0}
.pre{white-space:pre-wrap}
input[type=checkbox],input[type=radio]{display:inline;width:auto;margin-right:.5rem}
.secret{font-family:monospace;word-break:break-all;background:#fff8d6;padding:.75rem;border:1px solid #e0c200}
.ok{border-left:4px solid #1b7f3b;padding:.5rem 1rem;background:#e9f7ee}
`);

export interface PageOptions {
  title: string;
  body: SafeHtml;
  /** A wider page (dashboards with tables). */
  wide?: boolean;
}

/** A whole page: the title is also the page's one h1. */
export function page({ title, body, wide = false }: PageOptions): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body>
${wide ? trusted('<main class="wide">') : trusted('<main>')}
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`.text;
}

/** An error message box, announced to screen readers. */
export function errorBox(message: string | undefined): SafeHtml {
  return message ? html`<p class="error" role="alert">${message}</p>` : trusted('');
}
