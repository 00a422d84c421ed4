import { describe, expect, test } from '@jest/globals';
import { RouteTable } from './routes/route-table.ts';
import {
  AUDIT_SOURCES,
  AuditStream,
  AuditSubjects,
  AuthSubjects,
  auditSubject,
  BrainOwnerSubjects,
  BrainServiceSubjects,
  BrainSubjects,
  EventSubjects,
  GatewaySubjects,
  NATS_USERS,
  PresenceSubjects,
  ProxyOwnerSubjects,
  ProxySubjects,
  presenceSubject,
  SubjectTable,
  TriggerOwnerSubjects,
  TriggerSubjects,
} from './subjects.ts';

const requestSubjects = {
  auth: AuthSubjects,
  gateway: GatewaySubjects,
  brain: {
    ...BrainSubjects,
    ...prefixKeys('service', BrainServiceSubjects),
    ...prefixKeys('owner', BrainOwnerSubjects),
  },
  proxy: { ...ProxySubjects, ...prefixKeys('owner', ProxyOwnerSubjects) },
  trigger: { ...TriggerSubjects, ...prefixKeys('owner', TriggerOwnerSubjects) },
  audit: AuditSubjects,
};
const TOKEN = '[a-z][a-z0-9-]*';

function prefixKeys(prefix: string, subjects: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(subjects).map(([key, value]) => [`${prefix}.${key}`, value]));
}

describe('NATS subjects', () => {
  test('request subjects are <service>.<resource>.<verb> of their own service, all distinct', () => {
    const all = Object.entries(requestSubjects).flatMap(([service, subjects]) =>
      Object.values(subjects).map((subject) => {
        expect(subject).toMatch(new RegExp(`^${service}\\.${TOKEN}\\.${TOKEN}$`));
        return subject;
      }),
    );
    expect(new Set(all).size).toBe(all.length);
  });

  test('events are events.<service>.<resource>.<verb> and never collide with request subjects', () => {
    const { all, ...named } = EventSubjects;
    expect(all).toBe('events.>');
    for (const subject of Object.values(named))
      expect(subject).toMatch(new RegExp(`^events\\.${TOKEN}\\.${TOKEN}\\.${TOKEN}$`));
    expect(EventSubjects.tokenRevoked).toBe('events.auth.token.revoked');
  });

  test('every audit source publishes inside the AUDIT stream', () => {
    expect(AuditStream.name).toBe('AUDIT');
    expect(AuditStream.subjects).toEqual(['audit.events.>']);
    for (const source of AUDIT_SOURCES) expect(auditSubject(source)).toBe(`audit.events.${source}`);
  });

  test('every NATS-dispatched route names a declared subject', () => {
    const declared = new Set(Object.values(requestSubjects).flatMap((subjects) => Object.values(subjects)));
    for (const route of RouteTable) if (route.subject !== null) expect(declared).toContain(route.subject);
  });
});

describe('SubjectTable', () => {
  test('lists every request and event subject exactly once', () => {
    const { all: _all, ...events } = EventSubjects;
    const declared = [
      ...Object.values(requestSubjects).flatMap((subjects) => Object.values(subjects)),
      ...Object.values(events),
      ...NATS_USERS.map((service) => presenceSubject(service)),
      PresenceSubjects.requested,
    ].sort();
    expect(SubjectTable.map((route) => route.subject).sort()).toEqual(declared);
  });

  test('each service announces its presence on its own subject, which the directory hears', () => {
    for (const service of NATS_USERS) {
      const route = SubjectTable.find((entry) => entry.subject === presenceSubject(service));
      expect(route).toMatchObject({ kind: 'event', from: service, to: 'everyone', carriesCaller: false });
      expect(presenceSubject(service)).toMatch(new RegExp(`^events\\.${TOKEN}\\.${TOKEN}\\.${TOKEN}$`));
    }
    expect(PresenceSubjects.announcedAll).toBe('events.*.presence.announced');
    expect(SubjectTable.find((entry) => entry.subject === PresenceSubjects.requested)?.from).toBe('gateway');
  });

  test('a request is answered by the service its subject names; only the gateway sends callers', () => {
    for (const route of SubjectTable) {
      if (route.kind === 'request') expect(route.subject.startsWith(`${route.to}.`)).toBe(true);
      else expect(route.subject.startsWith(`events.${route.from}.`)).toBe(true);
      if (route.carriesCaller) expect(route.from).toBe('gateway');
    }
  });
});
