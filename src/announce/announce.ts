// What main.ts loads for --announce and --until.
export { createAnnouncer } from './announcer.ts';
export { watchAnnouncement } from './watch-announcement.ts';
