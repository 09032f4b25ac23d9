/** What the health route asks of the service. */
export interface HealthDeps {
  /** Resolves once storage answers a read; throws the storage error otherwise. */
  storageAnswers(): Promise<void>;
}

export type HealthUseCases = ReturnType<typeof healthUseCases>;

export function healthUseCases(deps: HealthDeps) {
  return {
    /** Resolves once storage answers: the service can serve calls. */
    check: () => deps.storageAnswers(),
  };
}
