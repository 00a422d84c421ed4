import { describe, expect, test } from '@jest/globals';
import { RouteTable, routeById } from '../routes/route-table.ts';
import { DispatchRequest } from '../schemas/events.ts';
import { SubjectTable } from '../subjects.ts';
import { EndpointList, endpointOf } from './endpoint-list.ts';

describe('the endpoint list', () => {
  test('declares each subject once, answered by the service the subject names', () => {
    const subjects = EndpointList.map((endpoint) => endpoint.subject);
    expect(new Set(subjects).size).toBe(subjects.length);
    for (const endpoint of EndpointList) expect(endpoint.subject.split('.')[0]).toBe(endpoint.to);
  });

  test('every route dispatched over the bus has its endpoint, carrying that route', () => {
    for (const route of RouteTable.filter((candidate) => candidate.subject !== null)) {
      const endpoint = endpointOf(route.subject ?? '');
      expect({ route: route.id, carried: endpoint?.routeId }).toEqual({ route: route.id, carried: route.id });
    }
  });

  test("a routed endpoint's caller, body and reply are its route's", () => {
    for (const endpoint of EndpointList.filter((candidate) => candidate.routeId !== null)) {
      const route = routeById(endpoint.routeId ?? '');
      expect({ endpoint: endpoint.subject, caller: endpoint.caller }).toEqual({
        endpoint: endpoint.subject,
        caller: route.auth === 'none' ? 'anonymous' : 'account',
      });
      expect(endpoint.from).toBe('gateway');
      if (route.subject !== null) expect(endpoint.reply).toBe(route.response);
      // What the gateway sends must fit: the DispatchRequest envelope, the route's body schema.
      const shape = (endpoint.request as unknown as { shape: Record<string, unknown> }).shape;
      expect(Object.keys(shape).sort()).toEqual(Object.keys(DispatchRequest.shape).sort());
      if (route.requestBody !== null) expect(shape.body).toBe(route.requestBody);
    }
  });

  test('the subject table lists every endpoint with its publisher and receiver, and whether it streams', () => {
    for (const endpoint of EndpointList) {
      expect(SubjectTable).toContainEqual({
        subject: endpoint.subject,
        kind: 'request',
        from: endpoint.from,
        to: endpoint.to,
        carriesCaller: endpoint.caller !== 'service',
        streams: endpoint.subject === 'brain.chat.send',
      });
    }
  });

  test('a routed request takes what the gateway sends and refuses another body', () => {
    const memory = endpointOf('brain.memory.create');
    expect(memory?.request.safeParse({ params: {}, query: {}, body: { content: 'noted' } }).success).toBe(
      true,
    );
    expect(memory?.request.safeParse({ params: {}, query: {}, body: { content: 42 } }).success).toBe(false);
    expect(endpointOf('brain.knowledge.list')?.request.parse({ params: {}, query: {}, body: null })).toEqual({
      params: {},
      query: {},
      body: null,
    });
  });
});
