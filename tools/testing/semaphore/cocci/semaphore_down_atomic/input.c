// SPDX-License-Identifier: GPL-2.0
/* Test input for scripts/coccinelle/locks/semaphore_down_atomic.cocci. */
struct semaphore;
typedef struct { int x; } spinlock_t;
void spin_lock(spinlock_t *l);
void spin_unlock(spinlock_t *l);
void down(struct semaphore *s);
int down_trylock(struct semaphore *s);
int down_interruptible(struct semaphore *s);

void bad(spinlock_t *l, struct semaphore *s)
{
	spin_lock(l);
	down(s);
	spin_unlock(l);
}

int bad_branch(spinlock_t *l, struct semaphore *s, int c)
{
	int ret = 0;

	spin_lock(l);
	if (c)
		ret = down_interruptible(s);
	spin_unlock(l);
	return ret;
}

/* Fine: released before, or trylock. */
void good(spinlock_t *l, struct semaphore *s)
{
	spin_lock(l);
	spin_unlock(l);
	down(s);
	spin_lock(l);
	if (!down_trylock(s))
		spin_unlock(l);
	else
		spin_unlock(l);
}
