/**
 * The context and memory story (test/support/stories/context.ts) against the stack as a user
 * starts it, then the audit log of it (test/support/stories/audit.ts).
 */
import { auditStory } from './support/stories/audit.ts';
import { contextStory } from './support/stories/context.ts';
import { processTarget } from './support/stories/process-target.ts';

const target = processTarget();
contextStory(target);
auditStory(target);
