/* SPDX-License-Identifier: MIT */
/* Tests that a wait in a NetworkManager session ends after its deadline even when the call never answers
 * (libnm has been seen to drop a cancelled call when NetworkManager died in the middle of it): the
 * wait returns no result and a "timed out" error, and the session closes. */
#include "apply/nm/nm-internal.h"
#include "tests.h"

int main(void) {
        g_autoptr(GError) error = NULL;
        GAsyncResult *result;
        NmSession s = {};

        /* The session as nm_session_open() starts it, without a bus: nothing will ever answer. */
        s.context = g_main_context_new();
        g_main_context_push_thread_default(s.context);
        nm_session_arm(&s, 10);

        result = nm_session_wait_result(&s, &error);
        ASSERT_TRUE(!result);
        ASSERT_TRUE(s.timed_out);
        ASSERT_TRUE(g_error_matches(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT));
        ASSERT_INT_EQ(nm_session_errno(&s, error), -ETIMEDOUT);
        nm_session_close(&s);
        ASSERT_TRUE(!s.context);

        printf("test-nm-session: ok\n");
        return 0;
}
