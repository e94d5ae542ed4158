export default async function globalTeardown(): Promise<void> {
  const g = globalThis as unknown as { __memsvcTeardown?: () => Promise<void> };
  await g.__memsvcTeardown?.();
}
