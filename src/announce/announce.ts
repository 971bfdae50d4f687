// What main.ts loads for --announce and --until.
export { createAnnouncer } from './announcer.ts';
export { createAnnouncementSource } from './announcement-source.ts';
