/**
 * Where a device stands, following its agent: an approved device whose agent was revoked by any
 * path (the device page, the tokens page, `pag`) is revoked, whatever its row still says.
 */

/** A device's own status (its row's); deviceStatus() is what it effectively is. */
export type DeviceStatusValue = 'pending' | 'approved' | 'denied' | 'revoked';

export function deviceStatus(device: {
  status: DeviceStatusValue;
  agent: { status: string } | null;
}): DeviceStatusValue {
  if (device.status !== 'approved') return device.status;
  return device.agent?.status === 'active' ? 'approved' : 'revoked';
}
