/**
 * The OAuth 2.1 story (test/support/stories/oauth.ts) against the stack as a user starts it.
 */
import { oauthStory } from './support/stories/oauth.ts';
import { processTarget } from './support/stories/process-target.ts';

oauthStory(processTarget());
