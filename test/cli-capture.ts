/**
 * Runs `fn` (a CLI command's function) with the process's stdout and stderr captured instead
 * of printed: the commands report progress on stderr and results on stdout.
 */
export async function captureOutput<T>(fn: () => Promise<T>): Promise<{ value: T; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    const value = await fn();
    return { value, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
