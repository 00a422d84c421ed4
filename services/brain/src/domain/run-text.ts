/**
 * The words of a trigger run (pure): the instructions the model gets beside the persona, the
 * offline brain's note that the services were not consulted, and the output as it is kept: at
 * most TRIGGER_OUTPUT_MAX_BYTES of UTF-8 (cut at a character, saying so at the end), storable
 * (valid Unicode without NUL, which PostgreSQL refuses), never empty.
 */
import { TRIGGER_OUTPUT_MAX_BYTES } from '@pag/contracts';

export interface RunLimits {
  maxToolRounds: number;
  maxServiceCalls: number;
}

export function runInstructions(
  run: { triggerId: string; runId: string; services: readonly string[] },
  limits: RunLimits,
): string {
  const lines = [
    `You are carrying out a scheduled automation of the owner (trigger ${run.triggerId}, run ${run.runId}) as the agent that created it.`,
    'Nobody reads along while it runs: do not ask questions; do the task and write its result in markdown.',
  ];
  if (run.services.length === 0) {
    lines.push('No connected services are available to this run.');
  } else {
    lines.push(
      `You may call these connected services with the call_service tool: ${run.services.join(', ')}.`,
      'Each call goes through the owner’s gateway with this agent’s rights; a refused call says why, so do not repeat it.',
      `At most ${limits.maxServiceCalls} calls in ${limits.maxToolRounds} rounds; then answer with what you have.`,
    );
  }
  return lines.join('\n');
}

/** Put before the offline brain's answer when the trigger lists services. */
export function notConsultedNote(services: readonly string[]): string {
  return services.length === 0
    ? ''
    : `The services this automation lists (${services.join(', ')}) were not consulted: without a language model nothing decides which calls to make.\n\n`;
}

const CUT_NOTE = `\n\n[Output cut: it exceeded ${TRIGGER_OUTPUT_MAX_BYTES} bytes.]`;
const EMPTY_NOTE = '[The model returned no text.]';

export function runOutput(text: string, maxBytes = TRIGGER_OUTPUT_MAX_BYTES): string {
  const storable = text.toWellFormed().replaceAll('\u0000', '\uFFFD');
  if (storable.trim() === '') return EMPTY_NOTE;
  const bytes = Buffer.from(storable, 'utf8');
  if (bytes.length <= maxBytes) return storable;
  let end = maxBytes - Buffer.byteLength(CUT_NOTE);
  // Back off continuation bytes (10xxxxxx) to the start of the character the cut falls in.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return `${bytes.subarray(0, end).toString('utf8')}${CUT_NOTE}`;
}
