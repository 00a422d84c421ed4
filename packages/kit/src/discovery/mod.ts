export type { PresenceAnnouncerOptions } from './presence-announcer.ts';
export { PresenceAnnouncer } from './presence-announcer.ts';
export type { DirectorySnapshot, ServiceDirectoryOptions } from './service-directory.ts';
export { ServiceDirectory } from './service-directory.ts';
