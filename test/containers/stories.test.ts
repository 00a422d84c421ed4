/**
 * The project's end-to-end stories against the system as containers: one GatewayContainer with
 * every service for the whole file, the same story code as against the stack as a process
 * (test/support/stories): the handshake (first: it needs a target without owners), OAuth with
 * openid-client (authorization code, PKCE, dynamic registration), the Ed25519 device, context and
 * memory with `pag owner create` and `pag token create`, and last the audit log: one row per answer
 * the stories got, and `pag audit verify` ok.
 */
import { auditStory } from '../support/stories/audit.ts';
import { containerTarget } from '../support/stories/container-target.ts';
import { contextStory } from '../support/stories/context.ts';
import { deviceStory } from '../support/stories/device.ts';
import { handshakeStory } from '../support/stories/handshake.ts';
import { oauthStory } from '../support/stories/oauth.ts';

const target = containerTarget();
handshakeStory(target);
oauthStory(target);
deviceStory(target);
contextStory(target);
auditStory(target);
