// SPDX-License-Identifier: GPL-2.0
/* Test input for scripts/coccinelle/locks/semaphore_hand_async.cocci. */
struct semaphore;
struct work_struct;
struct delayed_work;
struct workqueue_struct;
int down_trylock(struct semaphore *s);
void up(struct semaphore *s);
int schedule_delayed_work(struct delayed_work *w, unsigned long d);
int queue_work(struct workqueue_struct *wq, struct work_struct *w);
void process(void);

void retry(struct semaphore *s, struct delayed_work *dw)
{
	if (down_trylock(s)) {
		schedule_delayed_work(dw, 1);
		return;
	}
	process();
	up(s);
}

/* Fine: the work is queued after the semaphore was taken. */
void ok(struct semaphore *s, struct workqueue_struct *wq,
	struct work_struct *w)
{
	if (down_trylock(s))
		return;
	queue_work(wq, w);
}
