import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, headingAnchors, links, REPO_ROOT, readPage } from './support/docs.ts';

// Every link in README.md and docs/ that stays inside the repository leads
// somewhere: a relative link to a file or folder that exists, an #anchor to a
// heading of its page, as GitHub names headings.

describe.each(docPages())('%s', (page) => {
  const text = readPage(page);

  it('has only links that resolve: files and folders that exist, anchors of headings that exist', () => {
    const broken: string[] = [];
    for (const { target, line } of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? page : normalize(join(dirname(page), decodeURIComponent(path)));
      const where = `${page}:${line} (${target})`;
      if (file.startsWith('..') || !existsSync(join(REPO_ROOT, file))) {
        broken.push(`${where}: ${file} does not exist`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!file.endsWith('.md') || statSync(join(REPO_ROOT, file)).isDirectory()) {
        broken.push(`${where}: an anchor into ${file}, which is not a Markdown page`);
        continue;
      }
      const anchors = headingAnchors(readPage(relative(REPO_ROOT, join(REPO_ROOT, file))));
      if (!anchors.includes(anchor)) broken.push(`${where}: ${file} has no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });
});

describe('the anchors GitHub gives headings, and the README', () => {
  it('drop markup and punctuation, keep hyphens, and number repeats', () => {
    const text = [
      "## sidecar-init's own log",
      '## Readiness the process reports: `notify` and `fd:N`',
      '## The image, or `COPY --from` into yours',
      '## [Linked](https://example.com) heading',
      '```',
      '## not a heading, in a code block',
      '```',
      '## Limits',
      '### Limits',
    ].join('\n');
    expect(headingAnchors(text)).toEqual([
      'sidecar-inits-own-log',
      'readiness-the-process-reports-notify-and-fdn',
      'the-image-or-copy---from-into-yours',
      'linked-heading',
      'limits',
      'limits-1',
    ]);
  });

  it('keeps README.md a landing page: at most 300 lines, with the choice against native sidecars on its first screen', () => {
    const lines = readPage('README.md').split('\n');
    expect(lines.length).toBeLessThanOrEqual(300);
    expect(lines.slice(0, 60)).toContain('## sidecar-init or Kubernetes native sidecars?');
  });

  it('finds the pages README.md links to', () => {
    const pages = links(readPage('README.md')).map((link) => link.target.split('#')[0]);
    for (const page of docPages().filter((name) => name !== 'README.md')) expect(pages).toContain(page);
  });
});
