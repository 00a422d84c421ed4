/**
 * Stripe. Checked against docs.stripe.com/keys and docs.stripe.com/api/authentication: a secret
 * or restricted API key, as a bearer token; every read, lists and searches included, is a GET.
 * (Stripe's OAuth is Stripe Connect, for platforms acting on other accounts: not this connector.)
 */
import { defineProvider, METHOD_OVERRIDES, REST_READ } from '../provider-definition.ts';

export const stripe = defineProvider({
  name: 'stripe',
  displayName: 'Stripe',
  auth: {
    type: 'api_key',
    keyHint: 'A restricted key from dashboard.stripe.com/apikeys (rk_…), read-only where that is enough.',
  },
  api: {
    baseUrl: 'https://api.stripe.com/v1',
    allowedHosts: ['api.stripe.com'],
    credential: { type: 'bearer' },
  },
  resources: ['customers', 'charges', 'invoices', 'payment_intents', 'subscriptions', 'balance'],
  access: {
    style: 'rest',
    readAccess: `${REST_READ} customers, charges, invoices, payment intents, subscriptions and the balance (Stripe's list and search endpoints are GET).`,
    overrideParameters: METHOD_OVERRIDES,
  },
});
