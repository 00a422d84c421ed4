/**
 * Lifetimes. Access and refresh tokens from config; refresh tokens rotate on every use, each new
 * one living the full refresh lifetime, within the grant's lifetime (a year after the owner's
 * consent, after which the owner consents again). Codes live a minute; tokens never expire with
 * the owner's browser session (agents outlive it).
 */
import type { Configuration } from 'oidc-provider';

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export function lifetimes(
  accessTokenTtlSeconds: number,
  refreshTokenTtlSeconds: number,
): Configuration['ttl'] {
  return {
    AccessToken: accessTokenTtlSeconds,
    AuthorizationCode: MINUTE,
    RefreshToken: refreshTokenTtlSeconds,
    Grant: Math.max(refreshTokenTtlSeconds, 365 * DAY),
    IdToken: HOUR,
    Interaction: HOUR,
    Session: 14 * DAY,
  };
}
