/**
 * The secrets of embedded mode, made once and kept in DATA_DIR/secrets.json (mode 0600) so a
 * restart keeps sessions, signing keys and token hashes valid. Outside embedded mode they come
 * from the environment of each service instead (see the README's configuration table).
 */
import { hkdfSync, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

const StackSecrets = z.object({
  cookieKeys: z.array(z.string().min(32)).min(1),
  keyEncryptionKey: z.string().min(40),
  tokenHashKey: z.string().min(32),
  introspectionClientId: z.string().min(1),
  introspectionClientSecret: z.string().min(32),
});
export type StackSecrets = z.infer<typeof StackSecrets>;

const secret = (bytes: number) => randomBytes(bytes).toString('base64url');

function generate(): StackSecrets {
  return {
    cookieKeys: [secret(32)],
    keyEncryptionKey: randomBytes(32).toString('base64'),
    tokenHashKey: secret(32),
    introspectionClientId: 'gateway',
    introspectionClientSecret: secret(32),
  };
}

/** Reads DATA_DIR/secrets.json, creating it on first use; a damaged file stops start-up. */
export async function loadStackSecrets(dataDir: string): Promise<StackSecrets> {
  const path = join(dataDir, 'secrets.json');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const fresh = generate();
    // 'wx' fails if another process created it meanwhile; then that one is read below.
    await writeFile(path, `${JSON.stringify(fresh, null, 2)}\n`, { mode: 0o600, flag: 'wx' }).catch(
      (writeError) => {
        if ((writeError as NodeJS.ErrnoException).code !== 'EEXIST') throw writeError;
      },
    );
    text = await readFile(path, 'utf8');
  }
  let parsed: ReturnType<typeof StackSecrets.safeParse>;
  try {
    parsed = StackSecrets.safeParse(JSON.parse(text));
  } catch {
    parsed = StackSecrets.safeParse(undefined);
  }
  if (!parsed.success)
    throw new Error(`${path} is damaged; restore it from a backup or start with a new DATA_DIR`);
  return parsed.data;
}

function derived(secrets: StackSecrets, label: string): Buffer {
  const master = Buffer.from(secrets.keyEncryptionKey, 'base64');
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), label, 32));
}

/**
 * TOKEN_TAG_KEYS in embedded mode (the auth service tags tokens with it, the gateway and the proxy
 * verify them): derived from the token hash key with HKDF-SHA256 under a label of its own, for the
 * reasons given for the vault key below: DATA_DIRs made before token tags existed need no new
 * secret, and the stack and `pag` always agree. Knowing it tells nothing about the token hash key.
 */
export function embeddedTokenTagKey(secrets: StackSecrets): string {
  return Buffer.from(
    hkdfSync(
      'sha256',
      Buffer.from(secrets.tokenHashKey, 'utf8'),
      Buffer.alloc(0),
      'pag token tag key v1',
      32,
    ),
  ).toString('base64url');
}

/**
 * The proxy's VAULT_ENCRYPTION_KEY in embedded mode (base64 of 32 bytes): derived from the key
 * encryption key with HKDF-SHA256 under a label of its own, so DATA_DIRs made before the proxy
 * existed need no new secret, and the stack and `pag` (which may start at the same moment) can
 * never disagree on it, as they could if either wrote a fresh key into secrets.json.
 */
export function embeddedVaultKey(secrets: StackSecrets): string {
  return derived(secrets, 'pag proxy vault key v1').toString('base64');
}

/**
 * The brain's BRAIN_ENCRYPTION_KEY in embedded mode (base64 of 32 bytes; it seals the owners'
 * own language-model API keys): derived like the vault key, under its own label, for the same
 * reasons: DATA_DIRs made before it need no new secret, and the stack and `pag` always agree.
 */
export function embeddedBrainKey(secrets: StackSecrets): string {
  return derived(secrets, 'pag brain provider key v1').toString('base64');
}

/**
 * GATEWAY_SECRET in embedded mode (the gateway signs what it forwards to auth and proxy with it):
 * derived the same way under its own label, for the same reasons: DATA_DIRs made before it need
 * nothing new, and the stack and `pag` always agree.
 */
export function embeddedGatewaySecret(secrets: StackSecrets): string {
  return derived(secrets, 'pag gateway secret v1').toString('base64url');
}

/**
 * AUDIT_SIGNING_KEY in embedded mode (base64url of the 32-byte Ed25519 seed the audit service signs
 * checkpoints with, and `pag audit verify` derives the public key from): derived the same way under
 * its own label, so the stack and `pag` always agree and DATA_DIRs made before it need nothing new.
 */
export function embeddedAuditSigningKey(secrets: StackSecrets): string {
  return derived(secrets, 'pag audit signing key v1').toString('base64url');
}

/**
 * The password of the audit service's own login role in the embedded PostgreSQL (a member of
 * pag_audit_writer: it may insert and read the log, never change it), derived the same way.
 */
export function embeddedAuditRolePassword(secrets: StackSecrets): string {
  return derived(secrets, 'pag audit role password v1').toString('base64url');
}
