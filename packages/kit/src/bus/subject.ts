/**
 * NATS subject rules, so the in-memory bus accepts and routes exactly what a nats-server would:
 * tokens separated by '.', `*` matches one token, `>` matches one or more trailing tokens.
 * Publishing needs a literal subject; subscribing may use wildcards.
 */

const INVALID_TOKEN_CHARACTERS = /[\s]/;

function tokensOf(subject: string, kind: string): string[] {
  const tokens = subject.split('.');
  if (subject.length === 0 || tokens.some((t) => t.length === 0 || INVALID_TOKEN_CHARACTERS.test(t))) {
    throw new TypeError(`invalid ${kind} "${subject}": tokens separated by '.', none empty, no whitespace`);
  }
  return tokens;
}

/** Throws unless `subject` can be published to (no wildcards). */
export function assertLiteralSubject(subject: string): void {
  const tokens = tokensOf(subject, 'subject');
  if (tokens.some((t) => t === '*' || t === '>')) {
    throw new TypeError(`invalid subject "${subject}": wildcards are for subscriptions only`);
  }
}

/** Throws unless `pattern` is a valid subscription subject (`>` only as the last token). */
export function assertSubjectPattern(pattern: string): void {
  const tokens = tokensOf(pattern, 'subject pattern');
  if (tokens.slice(0, -1).includes('>')) {
    throw new TypeError(`invalid subject pattern "${pattern}": '>' must be the last token`);
  }
}

export function subjectMatches(pattern: string, subject: string): boolean {
  const want = pattern.split('.');
  const have = subject.split('.');
  for (let i = 0; i < want.length; i++) {
    const token = want[i];
    if (token === '>') return have.length > i;
    if (i >= have.length) return false;
    if (token !== '*' && token !== have[i]) return false;
  }
  return want.length === have.length;
}

/** Whether some literal subject matches both patterns (JetStream refuses overlapping streams). */
export function subjectsOverlap(a: string, b: string): boolean {
  const x = a.split('.');
  const y = b.split('.');
  for (let i = 0; ; i++) {
    const p = x[i];
    const q = y[i];
    if (p === undefined || q === undefined) return p === q;
    if (p === '>' || q === '>') return true;
    if (p !== '*' && q !== '*' && p !== q) return false;
  }
}
