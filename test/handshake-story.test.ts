/**
 * The handshake story (test/support/stories/handshake.ts) against the stack as a user starts it.
 */
import { handshakeStory } from './support/stories/handshake.ts';
import { processTarget } from './support/stories/process-target.ts';

handshakeStory(processTarget());
