/**
 * The device story (test/support/stories/device.ts) against the stack as a user starts it.
 */
import { deviceStory } from './support/stories/device.ts';
import { processTarget } from './support/stories/process-target.ts';

deviceStory(processTarget());
