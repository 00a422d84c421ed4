/**
 * What the owner decided on the consent form, read against what the prompt asked:
 * - only the asked API scopes are read from the form (a box ticked for anything else is ignored),
 *   so nothing beyond the request can be granted; none ticked (of some asked) is a denial;
 * - the limits follow the rule of every agent (agents/agent-rules.ts checkLimit: empty is the
 *   account's default, otherwise a whole number from 1); a limit breaking it refuses the form
 *   with the rule's sentence and what was entered, to show again;
 * - the persona is passed on as chosen ('' is the default persona); the brain checks it is the
 *   owner's.
 */
import { AppError } from '@pag/contracts';
import { checkLimit } from '../agents/agent-rules.ts';
import { limitOf } from '../dashboard/devices-form.ts';
import type { ConsentFormValues } from './interaction-pages.ts';
import { consentScopeField } from './interaction-pages.ts';

export type ConsentChoice =
  | { decision: 'deny' }
  | { decision: 'refused'; values: ConsentFormValues; error: string }
  | {
      decision: 'allow';
      granted: string[];
      rejected: string[];
      dailyLimit: number | null;
      monthlyLimit: number | null;
      personaId: string;
    };

export function readConsentForm(form: Record<string, string>, asked: readonly string[]): ConsentChoice {
  const granted = asked.filter((scope) => form[consentScopeField(scope)] === 'on');
  if (asked.length > 0 && granted.length === 0) return { decision: 'deny' };
  const values: ConsentFormValues = {
    scopes: granted,
    daily: form.daily ?? '',
    monthly: form.monthly ?? '',
    persona: form.persona ?? '',
  };
  try {
    return {
      decision: 'allow',
      granted,
      rejected: asked.filter((scope) => !granted.includes(scope)),
      dailyLimit: checkLimit(limitOf(values.daily), 'The daily limit'),
      monthlyLimit: checkLimit(limitOf(values.monthly), 'The monthly limit'),
      personaId: values.persona,
    };
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'INVALID_REQUEST')) throw error;
    return { decision: 'refused', values, error: error.message };
  }
}
