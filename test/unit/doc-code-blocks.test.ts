import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_DIR } from '../helpers/run-cli.ts';

/**
 * Every ```ts block in README.md and docs/*.md compiles on its own, as a module of a pipeline
 * project: `idem` resolves to src/index.ts, other packages to node_modules, with the project's
 * compiler options. A block that shows a piece of a larger module (a field of a definition, a
 * loop) opens with ```ts excerpt instead: still highlighted as TypeScript, and not compiled.
 */
const DOCS = ['README.md', ...['architecture.md', 'operating.md', 'scaling.md', 'writing-a-pipeline.md'].map((f) => `docs/${f}`)];

interface Block {
  readonly doc: string;
  readonly line: number;
  readonly code: string;
}

function tsBlocks(doc: string): { compiled: Block[]; excerpts: number } {
  const lines = readFileSync(path.join(PROJECT_DIR, doc), 'utf8').split('\n');
  const compiled: Block[] = [];
  let excerpts = 0;
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\S*)\s*(.*)$/.exec(lines[i]!);
    if (!fence || fence[1] === '') continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
    if (fence[1] === 'ts' || fence[1] === 'typescript') {
      if (fence[2] === 'excerpt') excerpts += 1;
      else compiled.push({ doc, line: i + 1, code: lines.slice(i + 1, end).join('\n') });
    }
    i = end;
  }
  return { compiled, excerpts };
}

describe('the TypeScript in the docs compiles', () => {
  const blocks = DOCS.flatMap((doc) => tsBlocks(doc).compiled);

  it('has whole modules to compile (the pipeline and migration examples)', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4);
  });

  it('compiles every ```ts block without an error', () => {
    // Inside the project, so that packages resolve from its node_modules as a pipeline's do.
    mkdirSync(path.join(PROJECT_DIR, 'node_modules', '.cache'), { recursive: true });
    const dir = mkdtempSync(path.join(PROJECT_DIR, 'node_modules', '.cache', 'idem-doc-blocks-'));
    try {
      const files = blocks.map((block, i) => {
        const file = path.join(dir, `block-${i}.mts`);
        writeFileSync(file, `${block.code}\nexport {};\n`);
        return file;
      });
      const config = ts.getParsedCommandLineOfConfigFile(path.join(PROJECT_DIR, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
      const options: ts.CompilerOptions = {
        ...config.options,
        noEmit: true,
        declaration: false,
        rootDir: undefined,
        outDir: undefined,
        baseUrl: PROJECT_DIR,
        paths: { idem: [path.join(PROJECT_DIR, 'src/index.ts')] },
      };
      const program = ts.createProgram(files, options);
      const errors = ts
        .getPreEmitDiagnostics(program)
        .filter((d) => d.file && files.includes(d.file.fileName))
        .map((d) => {
          const block = blocks[files.indexOf(d.file!.fileName)]!;
          const { line } = d.file!.getLineAndCharacterOfPosition(d.start!);
          return `${block.doc}:${block.line + 1 + line}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
        });
      expect(errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
