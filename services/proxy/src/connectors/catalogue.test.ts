import { describe, expect, test } from '@jest/globals';
import { CONNECTOR_NAMES, Connector, ConnectorAccessTable, ServiceName } from '@pag/contracts';
import { CONNECTORS, resolveConnectors } from './catalogue.ts';

describe('connector catalogue', () => {
  test('names and resources fit the scope grammar; base URLs are the real https APIs', () => {
    expect(new Set(CONNECTORS.map((connector) => connector.name)).size).toBe(CONNECTORS.length);
    for (const connector of CONNECTORS) {
      expect(ServiceName.safeParse(connector.name).success).toBe(true);
      expect(
        Connector.safeParse({
          ...connector,
          connected: false,
          resources: [...connector.resources],
          readAccess: ConnectorAccessTable[connector.name].readAccess,
        }).success,
      ).toBe(true);
      expect(new URL(connector.baseUrl).protocol).toBe('https:');
      expect(connector.baseUrl).not.toMatch(/\/$/);
    }
  });

  test("the catalogue and the contracts' read/write table name the same connectors", () => {
    expect(CONNECTORS.map((connector) => connector.name).sort()).toEqual([...CONNECTOR_NAMES].sort());
  });

  test('a base URL can be overridden by name; the rest of the connector stays', () => {
    const connectors = resolveConnectors({ github: 'http://127.0.0.1:9000/fake/' });
    expect(connectors.get('github')).toMatchObject({
      baseUrl: 'http://127.0.0.1:9000/fake',
      credential: { type: 'bearer' },
      displayName: 'GitHub',
    });
    expect(connectors.get('slack')?.baseUrl).toBe('https://slack.com/api');
  });
});
