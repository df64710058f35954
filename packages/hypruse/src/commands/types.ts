/** A non-tool CLI command (serve, doctor, init, ...). Tools are verbs of their own. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  run(argv: string[]): Promise<number>;
}
