/**
 * Figma. Checked against developers.figma.com/docs/rest-api/authentication: a personal access
 * token goes in Figma's own X-Figma-Token header (an OAuth token would go as a bearer); the
 * issue asks for Figma by API key. Comments and webhooks are POSTs and need write.
 */
import { defineProvider, METHOD_OVERRIDES, REST_READ } from '../provider-definition.ts';

export const figma = defineProvider({
  name: 'figma',
  displayName: 'Figma',
  auth: {
    type: 'api_key',
    keyHint: 'A personal access token from Figma: Settings → Security → Personal access tokens.',
  },
  api: {
    baseUrl: 'https://api.figma.com/v1',
    allowedHosts: ['api.figma.com'],
    credential: { type: 'header', name: 'x-figma-token' },
  },
  resources: ['me', 'files', 'images', 'teams', 'projects'],
  access: {
    style: 'rest',
    readAccess: `${REST_READ} the user, files, images, teams and projects.`,
    overrideParameters: METHOD_OVERRIDES,
  },
});
