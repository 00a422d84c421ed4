/**
 * The template helper escapes every value it is given, in text and in quoted attributes, and
 * leaves alone only what it built itself.
 */
import { describe, expect, test } from '@jest/globals';
import { escapeHtml, html, page } from './html.ts';

describe('html', () => {
  test('escapes the characters that open tags, entities and attribute values', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
    const name = '"><script>alert(1)</script>';
    expect(html`<input value="${name}">`.text).toBe(
      '<input value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">',
    );
  });

  test('nests built fragments and lists without escaping them twice; skips empty values', () => {
    const items = ['a<b', 'c&d'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.text).toBe(
      '<ul><li>a&lt;b</li><li>c&amp;d</li></ul>0',
    );
  });

  test('a page has a language, a title that is its one heading, and no script', () => {
    const text = page({ title: 'Hello <you>', body: html`<p>${'x'}</p>` });
    expect(text).toContain('<html lang="en">');
    expect(text).toContain('<title>Hello &lt;you&gt;</title>');
    expect(text.match(/<h1>/g)).toHaveLength(1);
    expect(text).not.toContain('<script');
  });
});
