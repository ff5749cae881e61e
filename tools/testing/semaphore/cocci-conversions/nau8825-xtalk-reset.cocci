// SPDX-License-Identifier: GPL-2.0-only
// Give back the crosstalk protection's unit instead of writing the count.
virtual patch

@depends on patch@
identifier nau;
@@
 nau8825_sema_reset(struct nau8825 *nau)
 {
-	nau->xtalk_sem.count = 1;
+	if (nau->xtalk_protect)
+		up(&nau->xtalk_sem);
 }

// The work releases the protection itself once it is done: wait for it
// whatever the state, so that the reset does not release it a second time.
@depends on patch@
identifier nau;
@@
 nau8825_xtalk_cancel(struct nau8825 *nau)
 {
+	/* The work releases the protection when it is done: wait for it. */
+	cancel_work_sync(&nau->xtalk_work);
 	...
-	if (nau->xtalk_enable && nau->xtalk_state !=
-		NAU8825_XTALK_DONE) {
-		cancel_work_sync(&nau->xtalk_work);
-		nau8825_xtalk_clean(nau, true);
-	}
+	if (nau->xtalk_enable && nau->xtalk_state != NAU8825_XTALK_DONE)
+		nau8825_xtalk_clean(nau, true);
 	...
 }
