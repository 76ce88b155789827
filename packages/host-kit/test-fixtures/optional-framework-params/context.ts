/** A user class that happens to be called Context: an ordinary body type, optional or not. */
export class Context {
  tenant!: string;
}
