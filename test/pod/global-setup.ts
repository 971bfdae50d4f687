import { buildImages } from './support/images.ts';

// Once per `npm run test:pod`: podman configured, images built (the Debian base
// only the first time on a machine), before any pod is played.
export default async function setup(): Promise<void> {
  await buildImages((line) => process.stderr.write(`test:pod: ${line}\n`));
}
