/**
 * An HTTP error the status handler answers with `status` and a JSON body `{ error: message }`.
 * @example
 * throw new HttpError(400, 'limit must be an integer from 1 to 1000, got "abc"');
 */
export class HttpError extends Error {
  /** The HTTP status code (400, 401, 404, 405, 413, 431...). */
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
  }
}
