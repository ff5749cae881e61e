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
