import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLUSTER, exec } from './support/cluster.ts';
import { buildClusterImages } from './support/images.ts';

// Once per `npm run test:cluster` (which has run scripts/cluster/build.sh):
// the images built and saved, the cluster started (scripts/cluster/up.sh), the
// images imported into containerd's k8s.io namespace; the cluster stopped and
// everything it left removed afterwards (scripts/cluster/down.sh), pass or fail.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Where scripts/cluster/import-images.sh finds them.
const IMAGES = join(CLUSTER.cache, 'images');

async function script(name: string, timeoutMs: number): Promise<string> {
  const result = await exec('bash', [join(ROOT, 'scripts/cluster', name)], undefined, timeoutMs);
  if (result.code !== 0) throw new Error(`scripts/cluster/${name} failed (${result.code}):\n${result.stdout}${result.stderr}`);
  return result.stdout.trim();
}

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const log = (line: string) => process.stderr.write(`test:cluster: ${line}\n`);
  // A cluster started by hand (docs/development.md) is used as it is, and left running.
  if (process.env.TEST_CLUSTER_RUNNING === '1') {
    log('TEST_CLUSTER_RUNNING=1: using the cluster scripts/cluster/up.sh started, leaving it up');
    return undefined;
  }
  await buildClusterImages(IMAGES, log);
  // A cluster a previous run left behind (killed mid-run) goes first.
  await script('down.sh', 120_000);
  log(await script('up.sh', 600_000));
  const teardown = async () => {
    log(await script('down.sh', 120_000));
  };
  try {
    log(await script('import-images.sh', 600_000));
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}
