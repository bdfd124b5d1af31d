// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit tests for iw_cm's pure helpers.
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <rdma/iw_cm.h>

static void iwcm_reject_msg_known_test(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, iwcm_reject_msg(-ECONNRESET),
			   "reset by remote host");
	KUNIT_EXPECT_STREQ(test, iwcm_reject_msg(-ECONNREFUSED),
			   "refused by remote application");
	KUNIT_EXPECT_STREQ(test, iwcm_reject_msg(-ETIMEDOUT),
			   "setup timeout");
}

static void iwcm_reject_msg_unknown_test(struct kunit *test)
{
	/* Providers report negative errnos; positive ones are not reasons. */
	static const int reasons[] = {
		0, ECONNRESET, ECONNREFUSED, ETIMEDOUT, -EINVAL, -ENOMEM,
		-ECONNABORTED, INT_MIN, INT_MAX,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(reasons); i++)
		KUNIT_EXPECT_STREQ_MSG(test, iwcm_reject_msg(reasons[i]),
				       "unrecognized reason",
				       "reason %d", reasons[i]);
}

static struct kunit_case iwcm_msg_cases[] = {
	KUNIT_CASE(iwcm_reject_msg_known_test),
	KUNIT_CASE(iwcm_reject_msg_unknown_test),
	{}
};

static struct kunit_suite iwcm_msg_suite = {
	.name = "iw_cm_msg",
	.test_cases = iwcm_msg_cases,
};

kunit_test_suite(iwcm_msg_suite);

MODULE_AUTHOR("rdma_cm project");
MODULE_DESCRIPTION("KUnit tests for iw_cm");
MODULE_LICENSE("Dual BSD/GPL");
