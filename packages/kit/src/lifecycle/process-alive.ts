/**
 * Whether a process with this pid exists (signal 0 checks without sending anything). For a pid
 * we started or read from our own state file, to tell a live process from one that has ended.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
