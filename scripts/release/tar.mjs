// A tar writer whose output depends only on the entries given: ustar headers
// (with a PAX record for a name that does not fit), every entry owned by root
// (0:0, no user or group names), one time for all, in the order given. An OCI
// image's layers and the OCI archive are made with it, so the same files give
// the same digests on any machine, with no container engine involved.
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

const BLOCK = 512;

/**
 * A tar archive of `entries` ({path, kind: 'file'|'dir'|'symlink', mode, data?, target?}),
 * paths relative ("usr/local/bin/sidecar-init", folders ending without a slash).
 */
export function createTar(entries, { mtime }) {
  const chunks = [];
  for (const entry of entries) {
    const name = entry.kind === 'dir' ? `${entry.path}/` : entry.path;
    const data = entry.kind === 'file' ? entry.data : Buffer.alloc(0);
    const linkname = entry.kind === 'symlink' ? entry.target : '';
    const pax = {};
    const split = splitName(name);
    if (split === undefined) pax.path = name;
    if (Buffer.byteLength(linkname) > 100) pax.linkpath = linkname;
    if (Object.keys(pax).length > 0) {
      const records = Buffer.from(
        Object.entries(pax)
          .map(([key, value]) => paxRecord(key, value))
          .join(''),
      );
      chunks.push(
        header({ name: 'PaxHeader', prefix: '', size: records.length, mode: 0o644, mtime, type: 'x', linkname: '' }),
        pad(records),
      );
    }
    const { prefix, base } = split ?? { prefix: '', base: name.slice(0, 100) };
    const type = { file: '0', dir: '5', symlink: '2' }[entry.kind];
    chunks.push(
      header({ name: base, prefix, size: data.length, mode: entry.mode, mtime, type, linkname: linkname.slice(0, 100) }),
      pad(data),
    );
  }
  chunks.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(chunks);
}

/** The entries of a folder on disk, sorted by path, under `under` (a path prefix in the archive). */
export function readTree(dir, under = '') {
  const entries = [];
  const walk = (relative) => {
    for (const name of readdirSync(join(dir, relative)).sort()) {
      const path = relative === '' ? name : `${relative}/${name}`;
      const stat = lstatSync(join(dir, path));
      const archived = under === '' ? path : `${under}/${path}`;
      const mode = stat.mode & 0o7777;
      if (stat.isDirectory()) {
        entries.push({ path: archived, kind: 'dir', mode });
        walk(path);
      } else if (stat.isSymbolicLink()) {
        entries.push({ path: archived, kind: 'symlink', mode: 0o777, target: readlinkSync(join(dir, path)) });
      } else if (stat.isFile()) {
        entries.push({ path: archived, kind: 'file', mode, data: readFileSync(join(dir, path)) });
      } else {
        throw new Error(`${join(dir, path)} is neither a file, a folder nor a symlink; a layer holds no other kind`);
      }
    }
  };
  walk('');
  return entries;
}

/** ustar keeps a name in two fields: up to 155 bytes of folders, then up to 100 of the rest. */
function splitName(name) {
  if (Buffer.byteLength(name) <= 100) return { prefix: '', base: name };
  for (let index = name.indexOf('/'); index !== -1; index = name.indexOf('/', index + 1)) {
    const prefix = name.slice(0, index);
    const base = name.slice(index + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(base) <= 100 && base !== '') return { prefix, base };
  }
  return undefined;
}

/** "LENGTH key=value\n", where LENGTH counts itself. */
function paxRecord(key, value) {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body);
  while (String(length).length + Buffer.byteLength(body) !== length) length = String(length).length + Buffer.byteLength(body);
  return `${length}${body}`;
}

function header({ name, prefix, size, mode, mtime, type, linkname }) {
  const block = Buffer.alloc(BLOCK);
  block.write(name, 0, 100);
  octal(block, 100, 8, mode);
  octal(block, 108, 8, 0);
  octal(block, 116, 8, 0);
  octal(block, 124, 12, size);
  octal(block, 136, 12, mtime);
  block.fill(' ', 148, 156);
  block.write(type, 156, 1);
  block.write(linkname, 157, 100);
  block.write('ustar\u000000', 257, 8);
  octal(block, 329, 8, 0);
  octal(block, 337, 8, 0);
  block.write(prefix, 345, 155);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 8);
  return block;
}

function octal(block, offset, length, value) {
  if (value >= 8 ** (length - 1)) throw new Error(`${value} does not fit a tar header field of ${length} bytes`);
  block.write(`${value.toString(8).padStart(length - 1, '0')}\u0000`, offset, length);
}

function pad(data) {
  const rest = data.length % BLOCK;
  return rest === 0 ? data : Buffer.concat([data, Buffer.alloc(BLOCK - rest)]);
}
