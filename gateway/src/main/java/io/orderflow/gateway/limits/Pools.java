package io.orderflow.gateway.limits;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The gateway's bounded thread pools for slow work, kept apart so that one kind cannot starve the other: the ops
 * chat's turns (a model call takes seconds) on {@code CHAT_MODEL_THREADS} threads, password hashes (tens of
 * milliseconds of CPU each) on {@code PASSWORD_HASH_THREADS}. Each has a bounded queue; work beyond it is refused at
 * once (a {@link java.util.concurrent.RejectedExecutionException}) rather than queued without end.
 */
@Component
public class Pools implements DisposableBean {

    /** Password hashes waiting per thread before a sign-in is refused as busy. */
    static final int PASSWORD_QUEUE_PER_THREAD = 100;

    private final Scheduler chat;
    private final Scheduler passwords;

    public Pools(LimitProperties limits) {
        this.chat = Schedulers.newBoundedElastic(limits.modelThreads(),
                limits.modelThreads() * LimitProperties.QUEUE_PER_THREAD, "chat-turns");
        this.passwords = Schedulers.newBoundedElastic(limits.passwordThreads(),
                limits.passwordThreads() * PASSWORD_QUEUE_PER_THREAD, "password-hashes");
    }

    /** For the ops chat's turns. */
    public Scheduler chat() {
        return chat;
    }

    /** For password hashes and checks. */
    public Scheduler passwords() {
        return passwords;
    }

    @Override
    public void destroy() {
        chat.dispose();
        passwords.dispose();
    }
}
