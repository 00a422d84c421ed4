/**
 * nginx as the reverse proxy the proxied call is set beside: Debian's package (installed here when
 * missing: `apt-get install -y nginx`, as root or through `sudo -n`), started by the benchmark as
 * a child process with its own configuration in a temp dir (listening on a free loopback port,
 * `proxy_pass` to the upstream over a keep-alive upstream block, no access log), stopped by its pid.
 * Its worker count is Debian's default (`worker_processes auto`: one per core).
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from '@pag/testkit';

const NGINX = '/usr/sbin/nginx';
/** How long nginx may take to accept connections after it was spawned. */
const START_TIMEOUT_MS = 10_000;

export interface RunningNginx extends AsyncDisposable {
  url: string;
  pid: number;
}

/** The binary, installed first when missing; or why it cannot be had (the row is then skipped). */
export function nginxBinary(): { path: string } | { missing: string } {
  if (existsSync(NGINX)) return { path: NGINX };
  const root = process.getuid?.() === 0;
  const [command, args] = root
    ? ['apt-get', ['install', '-y', 'nginx']]
    : ['sudo', ['-n', 'apt-get', 'install', '-y', 'nginx']];
  try {
    process.stderr.write(`bench: nginx is missing; ${command} ${args.join(' ')}\n`);
    execFileSync(command, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch (error) {
    return {
      missing: `nginx is not installed and \`${command} ${args.join(' ')}\` failed: ${String(error)}`,
    };
  }
  return existsSync(NGINX) ? { path: NGINX } : { missing: `apt-get installed no ${NGINX}` };
}

/** nginx in front of `upstream` (an http://host:port URL), on a free loopback port. */
export async function startNginx(binary: string, upstream: string): Promise<RunningNginx> {
  const dir = await mkdtemp(join(tmpdir(), 'pag-bench-nginx-'));
  const port = await freePort();
  const target = new URL(upstream);
  await writeFile(
    join(dir, 'nginx.conf'),
    `worker_processes auto;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  upstream bench_upstream {
    server ${target.host};
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://bench_upstream;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`,
  );
  const child = spawn(binary, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await acceptsConnections(url, child, () => errors);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid: child.pid ?? 0, [Symbol.asyncDispose]: stop };
}

/**
 * nginx says nothing when it is ready, so its port is asked until it answers (the upstream is
 * already running): a bounded wait on a process that offers no event to await.
 */
async function acceptsConnections(url: string, child: ChildProcess, errors: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}):\n${errors()}`);
    try {
      await (await fetch(url)).arrayBuffer();
      return;
    } catch {
      await delay(50);
    }
  }
  throw new Error(`nginx did not answer on ${url} within ${START_TIMEOUT_MS} ms:\n${errors()}`);
}

/** SIGQUIT is nginx's graceful stop; its master waits for the workers before it exits. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGQUIT');
  await exited;
}
