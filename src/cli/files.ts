import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/** A failure the command reports as one line and exit code 1 (2: the command line itself was wrong). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code = 1,
  ) {
    super(message);
  }
}

/** Writes `text` to `file` all or nothing: a temporary file beside it, then a rename. */
export async function writeAtomic(file: string, text: string | Uint8Array, mode?: number): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomUUID()}.tmp`);
  try {
    await fs.writeFile(tmp, text, mode === undefined ? undefined : { mode });
    await fs.rename(tmp, file);
  } catch (error) {
    await fs.rm(tmp, { force: true });
    throw error;
  }
}

export async function readText(file: string): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(code === 'ENOENT' ? `no such file: ${file}` : `cannot read ${file}: ${String(error)}`);
  }
}

export async function readJsonFile<T>(file: string, fallback: T): Promise<T> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    return fallback;
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new CliError(`${file} is not valid JSON: fix or delete it`);
  }
}

/** Which machine a file was pushed to, recorded in chartroom.json beside the code. */
export interface Link {
  /** The file, relative to chartroom.json's folder, with forward slashes. */
  file: string;
  machineId: string;
  projectId: string;
}

export const LINKS_FILE = 'chartroom.json';

export class Links {
  private constructor(
    private readonly dir: string,
    private links: Link[],
  ) {}

  static async load(dir: string): Promise<Links> {
    const data = await readJsonFile<{ machines?: unknown }>(path.join(dir, LINKS_FILE), {});
    const list = Array.isArray(data.machines) ? data.machines : [];
    const links = list.filter(
      (l): l is Link =>
        typeof l === 'object' &&
        l !== null &&
        typeof (l as Link).file === 'string' &&
        typeof (l as Link).machineId === 'string' &&
        typeof (l as Link).projectId === 'string',
    );
    return new Links(dir, links);
  }

  private key(file: string): string {
    return path.relative(this.dir, path.resolve(file)).split(path.sep).join('/');
  }

  find(file: string): Link | undefined {
    const key = this.key(file);
    return this.links.find((l) => l.file === key);
  }

  async save(file: string, machineId: string, projectId: string): Promise<void> {
    const key = this.key(file);
    this.links = [...this.links.filter((l) => l.file !== key), { file: key, machineId, projectId }];
    await writeAtomic(path.join(this.dir, LINKS_FILE), `${JSON.stringify({ machines: this.links }, null, 2)}\n`);
  }
}
