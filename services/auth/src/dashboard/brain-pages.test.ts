import { describe, expect, test } from '@jest/globals';
import { highlighted, textArea, typedText } from './brain-pages.ts';

describe('highlighted', () => {
  test('marks the passages between « and », escaping every piece', () => {
    expect(highlighted('take «<b>espresso</b>» & «milk»').text).toBe(
      'take <mark>&lt;b&gt;espresso&lt;/b&gt;</mark> &amp; <mark>milk</mark>',
    );
  });

  test('text without matches is only escaped', () => {
    expect(highlighted('<script>x</script>').text).toBe('&lt;script&gt;x&lt;/script&gt;');
  });
});

describe('textArea', () => {
  test('keeps a leading empty line (HTML drops the first newline of a textarea) and escapes', () => {
    const { text } = textArea({ id: 'soul_content', label: 'Instructions', value: '\nBe </textarea> kind' });
    expect(text).toContain('>\n\nBe &lt;/textarea&gt; kind</textarea>');
  });
});

test('typedText: browsers send line breaks as CRLF; stored as LF', () => {
  expect(typedText('a\r\nb\r\n')).toBe('a\nb\n');
  expect(typedText(undefined)).toBe('');
});
