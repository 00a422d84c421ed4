/**
 * Each service is one definition, and the definitions agree with the contracts: every request
 * endpoint the contracts address to a service is in that service's definition (and served by its
 * start()), none is answered by another, and nothing is served that the contracts do not declare.
 * A contract entry without its handler fails here, unless it is listed as not served yet.
 */
import { describe, expect, test } from '@jest/globals';
import { EndpointList, NATS_USERS } from '@pag/contracts';
import { auditService } from '../services/audit/src/mod.ts';
import { authService } from '../services/auth/src/mod.ts';
import { brainService } from '../services/brain/src/mod.ts';
import { gatewayService } from '../services/gateway/src/mod.ts';
import { proxyService } from '../services/proxy/src/mod.ts';
import { triggerService } from '../services/trigger/src/mod.ts';
import { NOT_SERVED_YET } from './support/not-served-yet.ts';

const definitions = [authService, brainService, proxyService, gatewayService, auditService, triggerService];

describe('service definitions', () => {
  test.each(definitions.map((definition) => [definition.name, definition] as const))(
    '%s answers exactly the endpoints the contracts address to it',
    (name, definition) => {
      const served = definition.endpoints.map((handler) => handler.endpoint.subject).sort();
      const declared = EndpointList.filter((endpoint) => endpoint.to === name)
        .map((endpoint) => endpoint.subject)
        .filter((subject) => !NOT_SERVED_YET.has(subject))
        .sort();
      expect(served).toEqual(declared);
      expect(new Set(served).size).toBe(served.length);
    },
  );

  test('every endpoint is served by a defined service or listed as not served yet', () => {
    const served = new Set(
      definitions.flatMap((definition) => definition.endpoints.map((handler) => handler.endpoint.subject)),
    );
    const orphans = EndpointList.map((endpoint) => endpoint.subject).filter(
      (subject) => !served.has(subject) && !NOT_SERVED_YET.has(subject),
    );
    expect(orphans).toEqual([]);
    // A subject listed as not served that is served now must leave the list.
    expect([...NOT_SERVED_YET].filter((subject) => served.has(subject))).toEqual([]);
  });

  test('names are NATS users, each defined once', () => {
    const names = definitions.map((definition) => definition.name);
    expect(names.every((name) => (NATS_USERS as readonly string[]).includes(name))).toBe(true);
    expect(new Set(names).size).toBe(names.length);
  });
});
