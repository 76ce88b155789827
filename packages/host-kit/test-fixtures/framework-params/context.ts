/** A user class that happens to be called Context: an ordinary body type. */
export class Context {
  tenant!: string;
}
